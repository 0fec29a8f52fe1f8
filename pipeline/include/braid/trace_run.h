// Traces users already have (Kineto JSON, an nsys SQLite export) stored as
// one run: the run's record (Braid's figures over every rank's events, and
// HolisticTraceAnalysis's per rank) and the loop that writes it, as one
// library call under `braid import`.
//
//   CheckTraceImport -> TraceImport::Start (files listed, readers started;
//   no store yet) -> StoreIn(store): one transaction, nothing stored unless
//   every file reads and `check_before_commit` passes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "braid/run_record.h"
#include "braid/status.h"
#include "braid/store.h"
#include "braid/trace_import.h"

namespace braid {

struct TraceImportRequest {
  std::string format;              // kineto | nsys
  std::vector<std::string> files;  // Kineto: one per rank or the job's folder; nsys: one .sqlite
  int threads = 0;                 // Kineto files read at once; 0: every hardware thread, at most 16
  // Run on the record before the run is committed (a refusal stores nothing).
  std::function<Status(const RunRecord&)> check_before_commit;
};

// The format is known and an nsys export is a file, not a folder.
[[nodiscard]] Status CheckTraceImport(const TraceImportRequest& request);

class TraceImport {
 public:
  // Kineto: the files listed and the readers started before any store is
  // opened, so that a folder without traces creates nothing.
  [[nodiscard]] static Result<TraceImport> Start(TraceImportRequest request);

  // The run read and written to `store`, its id in the record. Kineto: each
  // rank stored as its file is read and its events dropped then (the job is
  // never held whole); nsys: read whole, then stored. Call once.
  [[nodiscard]] Result<RunRecord> StoreIn(Store& store);

 private:
  explicit TraceImport(TraceImportRequest request) : request_(std::move(request)) {}
  Result<RunRecord> StoreNsys(Store& store);
  Result<RunRecord> StoreKineto(Store& store);

  TraceImportRequest request_;
  std::unique_ptr<KinetoJob> job_;  // Kineto only
};

}  // namespace braid
