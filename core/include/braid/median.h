// The one median every figure uses (tuning measurements, the lower bound,
// calibration samples, the GPU fit, the benches).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace braid {

// The middle value of `values`, or for an even count the mean of the two
// middle ones; nullopt for none. Reorders its own copy (O(n), nth_element).
// @pre no NaN in `values`.
template <typename T>
std::optional<double> Median(std::vector<T> values) {
  if (values.empty()) return std::nullopt;
  const size_t mid = values.size() / 2;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(values.begin(), at, values.end());
  const double upper = static_cast<double>(*at);
  if (values.size() % 2 == 1) return upper;
  // nth_element leaves the lower half before `at`: its largest is the lower middle.
  const double lower = static_cast<double>(*std::max_element(values.begin(), at));
  return (lower + upper) / 2;
}

}  // namespace braid
