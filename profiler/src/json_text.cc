#include "json_text.h"

#include <charconv>
#include <cmath>

namespace braid {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (its lead byte >= 0x80),
// or 0 when it is not one (Unicode's table 3-7: no overlongs, surrogates or
// code points past U+10FFFF).
size_t Utf8Length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = at(0);
  const auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return at(k) >= lo && at(k) <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  size_t plain = 0;  // start of the run of bytes copied as they are
  const auto flush = [&](size_t upto) { out.append(s.substr(plain, upto - plain)); };
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const size_t n = Utf8Length(s, i); n > 0) {
        i += n;
        continue;
      }
    }
    flush(i);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c >= 0x80) {
          out += "\\ufffd";
        } else {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        }
    }
    plain = ++i;
  }
  flush(s.size());
  out += '"';
}

void AppendJsonInt(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void AppendJsonDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void AppendMicrosOfNanos(std::string& out, int64_t ns) {
  // Unsigned, so that INT64_MIN has a magnitude.
  uint64_t mag = ns < 0 ? 0 - uint64_t(ns) : uint64_t(ns);
  if (ns < 0) out += '-';
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, mag / 1000);
  out.append(buf, r.ptr);
  unsigned frac = unsigned(mag % 1000);
  if (frac == 0) return;
  char digits[4] = {char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10), 0};
  size_t n = 3;
  while (digits[n - 1] == '0') --n;
  out += '.';
  out.append(digits, n);
}

}  // namespace braid
