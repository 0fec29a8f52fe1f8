#include "braid/lower_bound.h"

#include <algorithm>
#include <vector>

#include "braid/median.h"
#include "braid/plan_filter.h"

namespace braid {

namespace {

Result<double> MedianIterationNs(Backend& backend, const Plan& plan, const RunOptions& base) {
  RunOptions o = base;
  o.iters = std::min(base.iters, 3);
  o.warmup = std::min(base.warmup, 1);
  o.verify = false;
  o.trace = false;
  BRAID_ASSIGN_OR_RETURN(auto out, backend.Run(plan, o));
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
