#include "braid/bound_gap.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace braid {

namespace {

double Ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

}  // namespace

std::string_view BoundSideName(BoundSide s) { return s == BoundSide::kComm ? "comm" : "compute"; }

std::optional<BoundGap> BoundGapOf(const RunFigures& figures) {
  if (!figures.lower_bound) return std::nullopt;
  const RunMetrics& m = figures.metrics;
  // Each iteration's slowest present rank, then the median of those.
  std::vector<std::pair<double, std::pair<int, int>>> slowest;  // (makespan, (iteration, rank))
  for (int it = 0; it < int(m.values.size()); ++it) {
    int worst = -1;
    for (int r = 0; r < int(m.values[size_t(it)].size()); ++r) {
      if (size_t(r) < m.present.size() && !m.present[size_t(r)]) continue;
      if (worst < 0 ||
          m.values[size_t(it)][size_t(r)][Metric::kMakespan] > m.values[size_t(it)][size_t(worst)][Metric::kMakespan]) {
        worst = r;
      }
    }
    if (worst >= 0) slowest.push_back({m.values[size_t(it)][size_t(worst)][Metric::kMakespan], {it, worst}});
  }
  if (slowest.empty()) return std::nullopt;
  // Stable order: equal makespans keep iteration order, so the pick is the same on every reader.
  std::stable_sort(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto [it, rank] = slowest[(slowest.size() - 1) / 2].second;
  const MetricValues& v = m.values[size_t(it)][size_t(rank)];

  const LowerBound& lb = *figures.lower_bound;
  BoundGap g;
  g.side = lb.comm_alone_ns > lb.compute_alone_ns ? BoundSide::kComm : BoundSide::kCompute;
  g.iteration = it;
  g.rank = rank;
  g.makespan_ns = v[Metric::kMakespan];
  g.bound_ns = lb.lower_bound_ns();
  const double busy = g.side == BoundSide::kComm ? v[Metric::kComm] : v[Metric::kCompute];
  g.stretched_ns = busy - g.bound_ns;
  g.idle_ns = g.makespan_ns - busy;
  g.compute_slowdown = Ratio(v[Metric::kCompute], lb.compute_alone_ns);
  g.comm_slowdown = Ratio(v[Metric::kComm], lb.comm_alone_ns);
  return g;
}

}  // namespace braid
