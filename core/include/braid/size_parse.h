// Parses sizes given on the command line: "4096", "4K" (4096), "1M", "2G".
// Suffixes are binary (K = 1024) because GEMM dimensions are.
#pragma once

#include <cstdint>
#include <string_view>

#include "braid/status.h"

namespace braid {

Result<int64_t> ParseSize(std::string_view text, std::string_view flag);

}  // namespace braid
