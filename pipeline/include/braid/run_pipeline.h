// One run as a library call: a request in, a recorded (and, if asked,
// stored) run or a Status out. `braid run` (in one process and as the MPI
// leader), the tuner's trial runner and the Python module all go through
// here, so a run is checked, planned, measured, bounded and recorded the
// same way whoever asks:
//
//   RunRequest --PrepareRun--> PreparedRun --ExecuteRun(backend)--> RecordedRun --StoreRun--> run id
//                 checks, plan,                 run, lower bound,
//                 topology                      record
//
// Messages speak in the request's field names (comm_sms, verify, tp); the
// CLI maps them to its flags. Nothing here throws. Threading: each call
// uses only its arguments; a Backend is used by one caller at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/backend.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/run_figures.h"
#include "braid/run_record.h"
#include "braid/status.h"
#include "braid/store.h"
#include "braid/topology.h"
#include "braid/workload.h"

namespace braid {

struct RunRequest {
  // What to run: `layer` when set (a model's transformer block), else `op`.
  Workload op;
  std::optional<LayerWorkload> layer;
  OverlapConfig config;
  std::string topology = "h100-sxm";  // built-in name or a topology file's path
  std::string backend = "sim";        // the backend that will run it: sim | cpu | cuda
  RunOptions options;
  std::vector<std::string> notes;  // kept with the record (e.g. what a ub_cfgs file's keys did)
  // A data-parallel op (braid/data_parallel.h): > 0 says `op`'s ranks are
  // the DP group of a dp_group_tp × op.tp grid on the topology, so the run
  // sees that group's links (DpGroupTopology), not the first op.tp GPUs'.
  int dp_group_tp = 0;
};

struct PreparedRun {
  std::optional<LayerWorkload> layer;
  Plan plan;
  Topology topology;
  // Whether the record names the topology: a cpu run in one process uses
  // none (an MPI run that places ranks on its nodes sets it).
  bool topology_recorded = true;
  RunOptions options;
  std::vector<std::string> notes;  // the caller's notes, kept with the record
};

// Everything checked before anything runs or is written: the options, the
// plan (with the plan checker's proof), that the topology has the ranks and
// SMs the config asks for, that a comm_sms would take effect, that verify
// has real data to check. Invalid / NotFound name the field.
[[nodiscard]] Result<PreparedRun> PrepareRun(const RunRequest& request);

// DESIGN's lower bound of a prepared run: the serial plan of the same
// workload, its compute alone and its communication alone, on `backend`.
[[nodiscard]] Result<LowerBound> MeasureRunLowerBound(const PreparedRun& run, Backend& backend);

struct RecordedRun {
  RunRecord record;  // record.run_id is set by StoreRun
  RunOutput output;  // the events and what the backend reported
};

// Runs the plan on `backend`, measures the lower bound (unless `known` gives
// it: the tuner measures it once per target) and records the run.
[[nodiscard]] Result<RecordedRun> ExecuteRun(const PreparedRun& run, Backend& backend,
                                             std::optional<LowerBound> known = std::nullopt);

// ExecuteRun and StoreRun in one pass with the events streamed: each timed
// iteration goes into the store (when `store` is given) and into the
// figures as the backend finishes it, so that memory does not grow with the
// run (a 10-million-event sim run). The run is one transaction as with
// StoreRun: an error anywhere leaves nothing of it. run.output.events comes
// back empty. A backend that cannot stream returns its events whole; they
// then go in iteration by iteration the same way.
[[nodiscard]] Result<RecordedRun> ExecuteRunStreamed(const PreparedRun& run, Backend& backend, Store* store,
                                                     std::optional<LowerBound> known = std::nullopt);

// Writes the run (record, lanes, events, figure rows) in one transaction and
// sets run.record.run_id.
[[nodiscard]] Result<int64_t> StoreRun(Store& store, const PreparedRun& prepared, RecordedRun& run);

// A failed --verify as a status: Internal with the worst rank's error; OK
// when verification did not run or passed.
[[nodiscard]] Status VerifyVerdict(const RunOutput& out);

}  // namespace braid
