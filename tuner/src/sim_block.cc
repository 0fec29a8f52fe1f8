#include "braid/sim_block.h"

#include "braid/metrics.h"
#include "braid/run_pipeline.h"
#include "braid/sim_backend.h"

namespace braid {

Result<double> SimulateBlockNs(const LayerWorkload& lw, const std::string& topology) {
  BRAID_ASSIGN_OR_RETURN(RunRecord record, SimulateBlockRun(lw, OverlapConfig{}, topology));
  return record.figures.metrics.overall[Metric::kMakespan].p50;
}

Result<RunRecord> SimulateBlockRun(const LayerWorkload& lw, const OverlapConfig& config, const std::string& topology) {
  RunRequest request;
  request.layer = lw;
  request.config = config;
  request.topology = topology;
  request.backend = "sim";
  request.options.iters = 1;
  request.options.warmup = 0;
  BRAID_ASSIGN_OR_RETURN(auto prepared, PrepareRun(request));
  BRAID_ASSIGN_OR_RETURN(auto backend, MakeSimBackend(topology));
  // The lower bound is not needed: give a placeholder so none is measured.
  BRAID_ASSIGN_OR_RETURN(auto run, ExecuteRun(prepared, *backend, LowerBound{}));
  return std::move(run.record);
}

}  // namespace braid
