// The figures of one run that every reader shows the same way (braid report,
// export, the tuner, the viewer): the overlap metrics, docs/design.md's lower
// bound LB = max(compute alone, comm alone) and the efficiency LB / makespan.
// They are computed once, when the run is made, and stored with it
// (braid/metric_rows.h), so no reader repeats the arithmetic.
#pragma once

#include <optional>

#include "braid/metrics.h"

namespace braid {

struct LowerBound {
  double compute_alone_ns = 0;
  double comm_alone_ns = 0;
  double lower_bound_ns() const { return compute_alone_ns > comm_alone_ns ? compute_alone_ns : comm_alone_ns; }
};

struct RunFigures {
  RunMetrics metrics;
  std::optional<LowerBound> lower_bound;  // absent for imported traces
  // LB / makespan of the worst rank: the p50 uses the p50 makespan, the p99
  // the p99 makespan. Meaningful only with a lower bound.
  Summary efficiency;
};

// The figures of a run with its lower bound (if any); efficiency from them.
RunFigures FiguresOf(RunMetrics metrics, std::optional<LowerBound> lower_bound);

}  // namespace braid
