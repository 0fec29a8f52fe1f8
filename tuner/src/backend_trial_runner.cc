#include "braid/backend_trial_runner.h"

#include <utility>

#include "braid/planner.h"

namespace braid {

Measurement MeasurementOfRun(const RunOutput& out, int warmup, int iters) {
  std::vector<double> samples(out.iteration_ns.begin(), out.iteration_ns.end());
  return Summarize(std::move(samples), int64_t(warmup) + iters);
}

BackendTrialRunner::BackendTrialRunner(Backend& backend, Workload w, RunOptions base)
    : backend_(backend), w_(w), base_(base) {}

Result<Measurement> BackendTrialRunner::Measure(size_t, const OverlapConfig& config, int warmup, int iters,
                                                std::string_view) {
  BRAID_ASSIGN_OR_RETURN(auto plan, BuildPlan(w_, config));
  RunOptions opt = base_;
  opt.warmup = warmup;
  opt.iters = iters;
  opt.trace = false;  // the figure is the iteration time; events are not kept
  BRAID_ASSIGN_OR_RETURN(auto out, backend_.Run(plan, opt));
  if (out.iteration_ns.empty()) return Status::Internal("the backend returned no iteration times");
  return MeasurementOfRun(out, warmup, iters);
}

bool BackendTrialRunner::OutOfTime() const { return deadline_ && std::chrono::steady_clock::now() >= *deadline_; }

}  // namespace braid
