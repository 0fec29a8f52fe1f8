// Bridges the profiler's metrics to the store's per-iteration rows.
#pragma once

#include <vector>

#include "braid/metrics.h"
#include "braid/store.h"

namespace braid {

// One row per (iteration, rank, metric) of `m.values`, named by MetricName().
std::vector<MetricRow> MetricRowsOf(const RunMetrics& m);

// The inverse: per-iteration values and their summaries, without the events
// (so that a report of a million-event run reads a few hundred rows).
// Rows with names that are not metrics (e.g. HTA figures) are skipped.
RunMetrics RunMetricsFromRows(const std::vector<MetricRow>& rows);

}  // namespace braid
