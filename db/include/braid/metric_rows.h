// Bridges the profiler's metrics to the store's per-iteration rows.
#pragma once

#include <vector>

#include "braid/metrics.h"
#include "braid/run_figures.h"
#include "braid/store.h"

namespace braid {

// One row per (iteration, rank, metric) of `m.values`, named by MetricName().
std::vector<MetricRow> MetricRowsOf(const RunMetrics& m);

// The inverse: per-iteration values and their summaries, without the events
// (so that a report of a million-event run reads a few hundred rows).
// Rows with names that are not metrics (e.g. HTA figures) are skipped.
RunMetrics RunMetricsFromRows(const std::vector<MetricRow>& rows);

// The run's figures as rows: MetricRowsOf(metrics), plus, when there is a
// lower bound, whole-run rows (iteration -1, rank -1) "compute_alone_ns",
// "comm_alone_ns", "lower_bound_ns", "efficiency_p50" and "efficiency_p99".
std::vector<MetricRow> FigureRowsOf(const RunFigures& f);

// The inverse of FigureRowsOf. A run stored without the whole-run rows
// (before they existed, or imported) has no lower bound.
RunFigures RunFiguresFromRows(const std::vector<MetricRow>& rows);

}  // namespace braid
