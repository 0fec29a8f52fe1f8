// One line of the run browser: what `braid report` shows of a run, read from
// the store's run record and metric rows (never from the events, so that a
// store of many large runs lists quickly).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/status.h"
#include "braid/store.h"
#include "braid/stored_text.h"

namespace braid::view {

// One op of a layer run, from its layer note (braid/stored_text.h).
using OpNote = LayerOpNote;

struct RunSummary {
  int64_t id = 0;
  std::string source;    // "measured" | "imported"
  std::string workload;  // "gemm_rs M=... P=8", a layer, or "imported trace, 8 rank(s)"
  std::string topology;
  std::string backend;
  std::string config;     // "ring chunks=2 streams=1", or "" when none
  std::string algorithm;  // "ring", or ""
  int64_t event_count = 0;
  int iterations = 0;
  // p50 over iterations of the worst rank (docs/design.md's metrics).
  double makespan_ns = 0, compute_ns = 0, comm_ns = 0, overlap_ns = 0, exposed_comm_ns = 0, tail_ns = 0;
  double overlap_ratio = 0;
  // From the run's stored lower-bound rows (braid/metric_rows.h
  // FigureRowsOf; efficiency is its p50); absent for imported traces.
  std::optional<double> lower_bound_ns, efficiency;
  std::vector<OpNote> ops;  // layer runs: from the layer note, in plan order
};

// Summary of one stored run from its record and metric rows; Invalid
// ("damaged store: run 3 has ...") when its stored text is damaged.
[[nodiscard]] Result<RunSummary> SummarizeRun(const StoredRun& run, const std::vector<MetricRow>& rows);

// Every complete run of the store, id order.
Result<std::vector<RunSummary>> LoadRunSummaries(const Store& store);

// A metric of two runs side by side; `diff` = b − a, `ratio` = b / a (0 when a is 0).
struct MetricComparison {
  std::string name;  // "makespan_ns", ...
  bool is_time = true;
  std::optional<double> a, b;
  double diff = 0, ratio = 0;
};
std::vector<MetricComparison> CompareRuns(const RunSummary& a, const RunSummary& b);

}  // namespace braid::view
