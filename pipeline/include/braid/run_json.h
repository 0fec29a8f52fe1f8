// A run record as one JSON object: {"run", "source", "workload", "topology",
// "config", "backend", "iterations", "warmup", "metrics": {M: {p50, p99}},
// "lower_bound", "ranks": [{rank, metrics, hta?}], "verify"} — the contract
// scripts read from `braid run --json` and `braid report --run ID --json`
// (docs/design.md), and what the Python module returns.
#pragma once

#include <nlohmann/json.hpp>

#include "braid/run_record.h"

namespace braid {

nlohmann::json RunJson(const RunRecord& r);

}  // namespace braid
