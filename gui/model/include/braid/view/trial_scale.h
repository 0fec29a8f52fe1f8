// The time axis of a tuning session's plot, and which targets (ops) a
// session tuned. Linear, or logarithmic when the slowest trial shown takes
// ten times the fastest or more: one candidate 100× slower than the rest
// squeezed every other trial into one line at the bottom.
#pragma once

#include <string>
#include <vector>

#include "braid/view/session_trials.h"

namespace braid::view {

struct TrialScale {
  double lo = 0, hi = 1;  // the axis's range (ns), padded
  bool log = false;
  // Where v sits: 0 at hi (the plot's top), 1 at lo (its bottom).
  double FromTop(double v) const;
  // The values the axis labels: five evenly spaced (linear), or each power
  // of ten in range with its 2× and 5× (log), at least the two ends.
  std::vector<double> Ticks() const;
};

// A scale for times in [lo, hi] (ns, lo ≤ hi): padded 8 % of its span each
// way (linear) or a quarter of a decade (log).
TrialScale MakeTrialScale(double lo, double hi);

// The targets of a session's trials (TrialRow::op), in first-seen order;
// one empty target for a session that tuned one op.
std::vector<std::string> TrialTargets(const std::vector<TrialRow>& rows);

}  // namespace braid::view
