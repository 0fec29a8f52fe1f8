#include "braid/metric_rows.h"

#include <string>

namespace braid {

std::vector<MetricRow> MetricRowsOf(const RunMetrics& m) {
  std::vector<MetricRow> rows;
  for (size_t it = 0; it < m.values.size(); ++it) {
    for (size_t rank = 0; rank < m.values[it].size(); ++rank) {
      for (Metric metric : kAllMetrics) {
        rows.push_back({int(it), int(rank), std::string(MetricName(metric)), m.values[it][rank][metric]});
      }
    }
  }
  return rows;
}

}  // namespace braid
