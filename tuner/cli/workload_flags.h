// The one-op workload of the command line (--op --m --n --k --tp --dtype),
// shared by `braid run` and `braid presets lookup`.
#pragma once

#include <string>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid::cli {

// Sizes take K/M/G suffixes; every error names its flag.
Result<Workload> WorkloadFromFlags(const std::string& op, const std::string& m, const std::string& n,
                                   const std::string& k, int tp, const std::string& dtype);

}  // namespace braid::cli
