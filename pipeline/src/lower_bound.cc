#include "braid/lower_bound.h"

#include <algorithm>
#include <vector>

#include "braid/median.h"
#include "braid/metrics.h"
#include "braid/plan_filter.h"

namespace braid {

namespace {

// The lower bound is held against the run's makespan, which comes from its
// events (first step start to last step end, the worst rank's p50), so it is
// measured the same way. On the cuda and cpu backends iteration_ns is the
// host's time for a whole iteration, barriers and launches included (on an
// H200 a 2048 x 2048 x 1024 ag_gemm at P 2 took 66 us by its events and
// 176 us by the host, and its "efficiency" came out 2.6); the sim's is the
// makespan itself, which spares it recording events.
Result<double> MedianIterationNs(Backend& backend, const Plan& plan, const RunOptions& base) {
  RunOptions o = base;
  o.iters = std::min(base.iters, 3);
  o.warmup = std::min(base.warmup, 1);
  o.verify = false;
  o.trace = !backend.IterationTimesAreMakespans();
  BRAID_ASSIGN_OR_RETURN(auto out, backend.Run(plan, o));
  if (o.trace && !out.events.empty()) return ComputeRunMetrics(out.events).overall[Metric::kMakespan].p50;
  return Median(out.iteration_ns).value_or(0.0);
}

}  // namespace

Result<LowerBound> MeasureLowerBound(Backend& backend, const Plan& serial, const RunOptions& options) {
  LowerBound lb;
  auto c = MedianIterationNs(backend, FilterPlan(serial, [](const Step& s) { return !IsCommStep(s); }), options);
  if (!c.ok()) return c.status();
  lb.compute_alone_ns = *c;
  BRAID_ASSIGN_OR_RETURN(auto m, MedianIterationNs(backend, FilterPlan(serial, IsCommStep), options));
  lb.comm_alone_ns = m;
  return lb;
}

}  // namespace braid
