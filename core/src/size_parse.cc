#include "braid/size_parse.h"

#include <charconv>
#include <limits>
#include <string>

namespace braid {

Result<int64_t> ParseSize(std::string_view text, std::string_view flag) {
  auto bad = [&](const std::string& why) {
    return Status::Invalid(std::string(flag) + " '" + OneLine(text) + "': " + why);
  };
  if (text.empty()) return bad("empty size");
  int64_t mult = 1;
  std::string_view digits = text;
  switch (text.back()) {
    case 'K':
    case 'k':
      mult = int64_t{1} << 10;
      break;
    case 'M':
    case 'm':
      mult = int64_t{1} << 20;
      break;
    case 'G':
    case 'g':
      mult = int64_t{1} << 30;
      break;
    default:
      break;
  }
  if (mult != 1) digits.remove_suffix(1);
  if (!digits.empty() && digits.front() == '-') return bad("must be positive");
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    return bad("not a size (use an integer with an optional K, M or G suffix)");
  }
  if (ec == std::errc::result_out_of_range || v > std::numeric_limits<int64_t>::max() / mult) {
    return bad("too large");
  }
  if (v <= 0) return bad("must be positive");
  return v * mult;
}

}  // namespace braid
