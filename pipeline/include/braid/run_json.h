// A run record as one JSON object: {"run", "source", "workload", "topology",
// "config", "backend", "iterations", "warmup", "metrics": {M: {p50, p99}},
// "lower_bound", "gap", "ranks": [{rank, metrics, hta?}], "verify"} — the contract
// scripts read from `braid run --json` and `braid report --run ID --json`
// (docs/design.md), and what the Python module returns.
#pragma once

#include <nlohmann/json.hpp>

#include "braid/bound_gap.h"
#include "braid/run_record.h"

namespace braid {

nlohmann::json RunJson(const RunRecord& r);
// {"bound": "compute"|"comm", "iteration", "rank", "makespan_ns",
// "lower_bound_ns", "gap_ns", "stretched_ns", "idle_ns", "compute_slowdown",
// "comm_slowdown"}: the run's "gap" and each tune result's.
nlohmann::json BoundGapJson(const BoundGap& g);

}  // namespace braid
