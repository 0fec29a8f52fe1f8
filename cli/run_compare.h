// `braid report --compare A B`: two runs' metrics side by side with their
// differences (B − A, and B / A for times).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "braid/run_record.h"

namespace braid::cli {

// Per-pass busy times of each run (pass_times.h), when they are layer runs.
struct PassTimes {
  std::map<std::string, double> a, b;
};

// {"runs": [A, B], "metrics": {M: {"a": x, "b": y, "diff": y − x, "ratio": y / x}}}
// over the worst rank's p50 of every metric, lower_bound_ns / efficiency
// when both runs have them, and `<pass>_busy_ns` (fprop, dgrad, wgrad) for
// each pass both runs have: a training block tuned vs TE default, pass by pass.
nlohmann::json CompareJson(const RunRecord& a, const RunRecord& b, const PassTimes& passes = {});
std::string CompareTable(const RunRecord& a, const RunRecord& b, const PassTimes& passes = {});

}  // namespace braid::cli
