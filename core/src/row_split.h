// How a number of rows is cut into chunks: evenly, or by weights.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/status.h"

namespace braid {

struct RowRange {
  int64_t begin = 0;
  int64_t rows = 0;
  bool operator==(const RowRange&) const = default;
};

// Splits `total` rows into `chunks` ranges. With no weights the split must be
// exact (total % chunks == 0). With weights (one per chunk) the rows are
// apportioned by largest remainder; every chunk must get at least one row.
// `what` names the rows in error messages ("rows per rank block");
// `weights_allowed` says whether to suggest --splits when an even cut fails.
Result<std::vector<RowRange>> SplitRows(int64_t total, int chunks, const std::vector<int>& weights, const char* what,
                                        bool weights_allowed = true);

}  // namespace braid
