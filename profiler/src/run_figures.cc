#include "braid/run_figures.h"

#include <utility>

namespace braid {

RunFigures FiguresOf(RunMetrics metrics, std::optional<LowerBound> lower_bound) {
  RunFigures f;
  f.metrics = std::move(metrics);
  f.lower_bound = lower_bound;
  if (lower_bound) {
    const double bound = lower_bound->lower_bound_ns();
    const Summary& t = f.metrics.overall[Metric::kMakespan];
    f.efficiency = {t.p50 > 0 ? bound / t.p50 : 0.0, t.p99 > 0 ? bound / t.p99 : 0.0};
  }
  return f;
}

}  // namespace braid
