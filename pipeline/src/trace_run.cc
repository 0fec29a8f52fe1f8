#include "braid/trace_run.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "braid/metrics.h"
#include "braid/run_figures.h"

namespace braid {

namespace {

std::string LaneKind(const std::string& name) {
  if (name == "cpu runtime") return "cpu";
  if (name == "nvtx") return "marker";
  if (name == "cpu ops") return "cpu";
  return "gpu stream";
}

void AddLanes(const ImportedRank& rank, std::vector<LaneInfo>* out) {
  for (const ImportedLane& l : rank.lanes) out->push_back({rank.rank, l.lane, l.name, LaneKind(l.name)});
}

// The run's row for the whole trace: every rank's HTA figures, and Braid's
// figures (`metrics`: every rank's events').
Result<RunRecord> RecordOf(const ImportedTrace& trace, const RunMetrics& metrics) {
  RunRecord r;
  r.source = "imported";
  r.backend = trace.format;
  r.has_workload = false;
  r.config = nlohmann::json::object();
  r.notes[note::kFiles] = trace.files;
  r.notes[note::kHta] = nlohmann::json::array();
  std::set<int> seen;
  int world = 0;
  for (const ImportedRank& rank : trace.ranks) {
    if (!seen.insert(rank.rank).second) {
      return Status::Invalid("two traces claim rank " + std::to_string(rank.rank) + "; give one file per rank");
    }
    world = std::max(world, rank.world);
    const char* unit = trace.format == "kineto" ? "us" : "ns";
    r.notes[note::kHta].push_back(
        HtaRankNoteJson({rank.rank, rank.device, unit, rank.hta.comm, rank.hta.compute, rank.hta.overlap,
                         rank.hta.overlap_pct, rank.hta.idle_pct, rank.hta.compute_pct}));
  }
  r.workload.tp = world;
  r.iterations = metrics.iterations;
  r.figures = FiguresOf(metrics, std::nullopt);
  return r;
}

}  // namespace

Status CheckTraceImport(const TraceImportRequest& request) {
  if (request.format != "kineto" && request.format != "nsys") {
    return Status::Invalid("unknown trace format '" + OneLine(request.format) + "' (known: kineto, nsys)");
  }
  for (const std::string& f : request.files) {
    std::error_code ec;
    if (request.format == "nsys" && std::filesystem::is_directory(f, ec)) {
      return Status::Invalid("'" + OneLine(f) + "' is a directory, not an nsys export");
    }
  }
  return Status::Ok();
}

Result<TraceImport> TraceImport::Start(TraceImportRequest request) {
  BRAID_RETURN_IF_ERROR(CheckTraceImport(request));
  TraceImport import(std::move(request));
  if (import.request_.format == "kineto") {
    BRAID_ASSIGN_OR_RETURN(import.job_, KinetoJob::Start(import.request_.files, {.threads = import.request_.threads}));
  }
  return import;
}

Result<RunRecord> TraceImport::StoreIn(Store& store) { return job_ ? StoreKineto(store) : StoreNsys(store); }

Result<RunRecord> TraceImport::StoreNsys(Store& store) {
  if (request_.files.size() != 1) return Status::Invalid("import nsys takes one .sqlite file");
  BRAID_ASSIGN_OR_RETURN(ImportedTrace trace, ImportNsys(request_.files[0]));
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
  for (ImportedRank& rank : trace.ranks) {
    AddLanes(rank, &lanes);
    for (Event& e : rank.events) events.push_back(std::move(e));
  }
  BRAID_ASSIGN_OR_RETURN(RunRecord record, RecordOf(trace, ComputeRunMetrics(events)));
  if (request_.check_before_commit) BRAID_RETURN_IF_ERROR(request_.check_before_commit(record));
  BRAID_ASSIGN_OR_RETURN(record.run_id, store.WriteRun(MetaOf(record), lanes, events, RowsOf(record)));
  return record;
}

// All in one transaction: a bad file anywhere leaves nothing of the run in
// the store. Each rank's figures are taken as it is stored and its events
// dropped then: the whole job is never held at once (a 64-rank job of the
// shared traces peaked at 578 MB holding them, and spent a tenth of its
// time gathering them for the figures).
Result<RunRecord> TraceImport::StoreKineto(Store& store) {
  KinetoJob& job = *job_;
  RunMetricsBuilder figures;
  Status figures_status;  // Add refuses a rank twice, which KinetoJob::Next has already refused
  Store::RunPart part;
  const auto next = [&]() -> Result<const Store::RunPart*> {
    if (!part.events.empty() && figures_status.ok()) figures_status = figures.Add(part.events);
    job.GiveBack(std::move(part.events));  // a worker frees them and reuses the buffer
    part.events.clear();
    part.lanes.clear();
    BRAID_ASSIGN_OR_RETURN(ImportedRank * rank, job.Next());
    if (rank == nullptr) return static_cast<const Store::RunPart*>(nullptr);
    AddLanes(*rank, &part.lanes);
    part.events = std::move(rank->events);
    return &part;
  };
  RunRecord record;
  const auto finish = [&]() -> Result<Store::RunEnd> {
    BRAID_ASSIGN_OR_RETURN(ImportedTrace trace, job.Finish());
    BRAID_RETURN_IF_ERROR(figures_status);
    BRAID_ASSIGN_OR_RETURN(record, RecordOf(trace, figures.Finish()));
    if (request_.check_before_commit) BRAID_RETURN_IF_ERROR(request_.check_before_commit(record));
    return Store::RunEnd{MetaOf(record), RowsOf(record)};
  };
  BRAID_ASSIGN_OR_RETURN(record.run_id, store.WriteRunInParts(next, finish));
  return record;
}

}  // namespace braid
