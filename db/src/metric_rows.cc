#include "braid/metric_rows.h"

#include <algorithm>
#include <string>

namespace braid {

std::vector<MetricRow> MetricRowsOf(const RunMetrics& m) {
  std::vector<MetricRow> rows;
  for (size_t it = 0; it < m.values.size(); ++it) {
    for (size_t rank = 0; rank < m.values[it].size(); ++rank) {
      if (rank < m.present.size() && !m.present[rank]) continue;
      for (Metric metric : kAllMetrics) {
        rows.push_back({int(it), int(rank), std::string(MetricName(metric)), m.values[it][rank][metric]});
      }
    }
  }
  return rows;
}

RunMetrics RunMetricsFromRows(const std::vector<MetricRow>& rows) {
  int iterations = 0, ranks = 0;
  for (const MetricRow& r : rows) {
    iterations = std::max(iterations, r.iteration + 1);
    ranks = std::max(ranks, r.rank + 1);
  }
  const size_t n_it = static_cast<size_t>(iterations), n_rank = static_cast<size_t>(ranks);
  std::vector<std::vector<MetricValues>> values(n_it, std::vector<MetricValues>(n_rank));
  std::vector<bool> present(n_rank, false);
  for (const MetricRow& r : rows) {
    if (r.iteration < 0 || r.rank < 0) continue;
    present[size_t(r.rank)] = true;
    for (Metric m : kAllMetrics) {
      if (r.name == MetricName(m)) values[size_t(r.iteration)][size_t(r.rank)][m] = r.value;
    }
  }
  return SummarizeRunMetrics(std::move(values), std::move(present));
}

std::vector<MetricRow> FigureRowsOf(const RunFigures& f) {
  std::vector<MetricRow> rows = MetricRowsOf(f.metrics);
  if (!f.lower_bound) return rows;
  const LowerBound& lb = *f.lower_bound;
  rows.push_back({-1, -1, "compute_alone_ns", lb.compute_alone_ns});
  rows.push_back({-1, -1, "comm_alone_ns", lb.comm_alone_ns});
  rows.push_back({-1, -1, "lower_bound_ns", lb.lower_bound_ns()});
  rows.push_back({-1, -1, "efficiency_p50", f.efficiency.p50});
  rows.push_back({-1, -1, "efficiency_p99", f.efficiency.p99});
  return rows;
}

RunFigures RunFiguresFromRows(const std::vector<MetricRow>& rows) {
  RunFigures f;
  f.metrics = RunMetricsFromRows(rows);
  LowerBound lb;
  int found = 0;
  for (const MetricRow& r : rows) {
    if (r.iteration != -1 || r.rank != -1) continue;
    if (r.name == "compute_alone_ns") lb.compute_alone_ns = r.value, ++found;
    if (r.name == "comm_alone_ns") lb.comm_alone_ns = r.value, ++found;
    if (r.name == "efficiency_p50") f.efficiency.p50 = r.value, ++found;
    if (r.name == "efficiency_p99") f.efficiency.p99 = r.value, ++found;
  }
  if (found == 4) f.lower_bound = lb;
  return f;
}

}  // namespace braid
