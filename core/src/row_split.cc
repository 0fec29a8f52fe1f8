#include "row_split.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace braid {

Result<std::vector<RowRange>> SplitRows(int64_t total, int chunks, const std::vector<int>& weights, const char* what,
                                        bool weights_allowed) {
  if (chunks <= 0) return Status::Invalid("chunks must be at least 1");
  if (chunks > total) {
    return Status::Invalid("chunks=" + std::to_string(chunks) + " exceeds the " + what + " (" + std::to_string(total) +
                           ")");
  }
  std::vector<int64_t> sizes(size_t(chunks), 0);
  if (weights.empty()) {
    if (total % chunks != 0) {
      return Status::Invalid("chunks=" + std::to_string(chunks) + " does not divide the " + what + " (" +
                             std::to_string(total) + ") evenly" +
                             (weights_allowed ? "; use `splits` to say how to cut them" : ""));
    }
    std::fill(sizes.begin(), sizes.end(), total / chunks);
  } else {
    if (int(weights.size()) != chunks) {
      return Status::Invalid("`splits` has " + std::to_string(weights.size()) +
                             " weights but chunks=" + std::to_string(chunks));
    }
    const int64_t wsum = std::accumulate(weights.begin(), weights.end(), int64_t{0});
    // Largest remainder: floor shares first, then hand out the leftover rows
    // to the largest fractional parts (ties to the earlier chunk).
    std::vector<std::pair<int64_t, int>> rem;
    int64_t given = 0;
    for (int i = 0; i < chunks; ++i) {
      const int64_t num = total * weights[size_t(i)];
      sizes[size_t(i)] = num / wsum;
      given += sizes[size_t(i)];
      rem.emplace_back(num % wsum, i);
    }
    std::stable_sort(rem.begin(), rem.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (int64_t j = 0; j < total - given; ++j) sizes[size_t(rem[size_t(j)].second)] += 1;
    for (int i = 0; i < chunks; ++i) {
      if (sizes[size_t(i)] == 0) {
        return Status::Invalid("`splits` gives chunk " + std::to_string(i) + " no rows of the " + what + " (" +
                               std::to_string(total) + ")");
      }
    }
  }
  std::vector<RowRange> out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    out.push_back({at, s});
    at += s;
  }
  return out;
}

}  // namespace braid
