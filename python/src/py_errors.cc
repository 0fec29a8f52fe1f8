#include "py_errors.h"

#include <pybind11/pybind11.h>

#include <limits>
#include <string_view>

namespace braid::python {

std::string Utf8Text(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    // The length of a well-formed sequence starting here, 0 if none.
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t j = 1; j < n; ++j) {
      if (i + j >= text.size() || (byte(i + j) & 0xC0) != 0x80) n = 0;
    }
    // Overlong forms, surrogates and code points above U+10FFFF.
    if (n == 3 && ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xED && byte(i + 1) >= 0xA0))) n = 0;
    if (n == 4 && ((c == 0xF0 && byte(i + 1) < 0x90) || (c == 0xF4 && byte(i + 1) >= 0x90))) n = 0;
    if (n == 0) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

void ThrowIfPresetError(const Status& s) {
  if (!s.ok()) throw PresetError(Utf8Text(s.message()));
}

void ThrowIfValueError(const Status& s) {
  if (!s.ok()) throw pybind11::value_error(Utf8Text(s.message()));
}

void CheckPositive(long long value, const char* name) {
  if (value < 1) {
    throw pybind11::value_error(std::string(name) + " must be at least 1 (got " + std::to_string(value) + ")");
  }
}

int TpArgument(long long value) {
  CheckPositive(value, "tp");
  if (value > std::numeric_limits<int>::max()) {
    throw pybind11::value_error("tp must be at most " + std::to_string(std::numeric_limits<int>::max()) + " (got " +
                                std::to_string(value) + ")");
  }
  return int(value);
}

}  // namespace braid::python
