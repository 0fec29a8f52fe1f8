// `braid report --compare A B`: two runs' metrics side by side with their
// differences (B − A, and B / A for times).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "braid/run_record.h"

namespace braid::cli {

// {"runs": [A, B], "metrics": {M: {"a": x, "b": y, "diff": y − x, "ratio": y / x}}}
// over the worst rank's p50 of every metric, and lower_bound_ns / efficiency
// when both runs have them.
nlohmann::json CompareJson(const RunRecord& a, const RunRecord& b);
std::string CompareTable(const RunRecord& a, const RunRecord& b);

}  // namespace braid::cli
