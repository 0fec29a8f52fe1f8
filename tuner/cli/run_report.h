// How a finished run is shown: the JSON object of DESIGN.md's contract and
// a human table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "braid/backend.h"
#include "braid/metrics.h"
#include "braid/plan.h"

namespace braid::cli {

struct RunRecord {
  long long run_id = -1;  // -1: not stored
  std::string topology;
  std::string backend;
  const Plan* plan = nullptr;
  RunOptions options;
  const RunOutput* output = nullptr;
  RunMetrics metrics;
};

nlohmann::json RunJson(const RunRecord& r);
std::string RunTable(const RunRecord& r);

// "12.3 µs", "4.56 ms": three significant digits in a unit that fits.
std::string FormatDuration(double ns);

}  // namespace braid::cli
