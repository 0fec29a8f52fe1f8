// Bridges the profiler's metrics to the store's per-iteration rows.
#pragma once

#include <vector>

#include "braid/metrics.h"
#include "braid/store.h"

namespace braid {

// One row per (iteration, rank, metric) of `m.values`, named by MetricName().
std::vector<MetricRow> MetricRowsOf(const RunMetrics& m);

}  // namespace braid
