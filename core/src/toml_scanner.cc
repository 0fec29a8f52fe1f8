#include "toml_scanner.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace braid {

bool TomlScanner::ErrorAt(int line, int col, std::string msg) {
  if (error_.empty()) {
    std::ostringstream os;
    os << origin_ << ':' << line << ':' << col << ": " << msg;
    error_ = os.str();
  }
  return false;
}

std::string TomlScanner::Shown(char c) const {
  if (c >= 0x21 && c < 0x7f) return std::string("'") + c + "'";
  std::ostringstream os;
  os << "byte 0x" << std::hex << (unsigned(static_cast<unsigned char>(c)));
  return os.str();
}

// Blanks, an optional comment, then a newline or the end.
bool TomlScanner::EndOfLine() {
  SkipBlanks();
  if (!Eof() && Peek() == '#') {
    while (!Eof() && Peek() != '\n') {
      const auto c = static_cast<unsigned char>(Peek());
      if (c < 0x20 && c != '\t' && c != '\r') return Error("control character in a comment");
      Next();
    }
  }
  if (!Eof() && Peek() == '\r' && Peek(1) == '\n') Next();
  if (Eof()) return true;
  if (Peek() != '\n') return Error("expected the end of the line, found " + Shown(Peek()));
  Next();
  return true;
}

bool TomlScanner::Word(TomlValue& v, std::string_view word, bool value) {
  for (size_t k = 0; k < word.size(); ++k) Next();
  if (BareKeyChar(Peek())) return Error("expected a value (true or false)");
  v.kind = TomlValue::Kind::kBool;
  v.boolean = value;
  return true;
}

bool TomlScanner::Number(TomlValue& v) {
  std::string digits;
  bool is_float = false;
  char prev = '\0';
  while (!Eof()) {
    const char c = Peek();
    const bool digit = c >= '0' && c <= '9';
    if (c == '_') {
      if (!(prev >= '0' && prev <= '9')) return Error("'_' in a number must sit between digits");
    } else if (digit || c == '+' || c == '-') {
      digits += c;
    } else if (c == '.' || c == 'e' || c == 'E') {
      is_float = true;
      digits += c;
    } else if (BareKeyChar(c)) {
      return Error("not a number (inf, nan, hexadecimal and dates are not supported)");
    } else {
      break;
    }
    prev = c;
    Next();
  }
  if (prev == '_') return Error("'_' in a number must sit between digits");
  const char* b = digits.data();
  const char* e = b + digits.size();
  if (!digits.empty() && digits[0] == '+') ++b;
  if (b < e && (*b == '+' || (*b == '-' && b != digits.data()))) return Error("not a valid number '" + digits + "'");
  if (is_float) {
    double d = 0;
    auto [end, ec] = std::from_chars(b, e, d);
    if (ec != std::errc() || end != e || !std::isfinite(d)) return Error("not a valid number '" + digits + "'");
    v.kind = TomlValue::Kind::kFloat;
    v.number = d;
    return true;
  }
  int64_t n = 0;
  auto [end, ec] = std::from_chars(b, e, n);
  if (ec == std::errc::result_out_of_range) return Error("integer '" + digits + "' is out of range");
  if (ec != std::errc() || end != e) return Error("not a valid integer '" + digits + "'");
  v.kind = TomlValue::Kind::kInteger;
  v.integer = n;
  v.number = double(n);
  return true;
}

// Blanks, newlines and comments inside an array.
bool TomlScanner::SkipArrayFiller() {
  while (!Eof()) {
    const char c = Peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      Next();
    } else if (c == '#') {
      while (!Eof() && Peek() != '\n') Next();
    } else {
      break;
    }
  }
  return true;
}

bool TomlScanner::String(std::string& out) {
  const char quote = Peek();
  if (Rest().starts_with(std::string(3, quote))) {
    return Error("multi-line strings are not supported in Braid data files");
  }
  Next();
  while (true) {
    if (Eof() || Peek() == '\n') return Error("unterminated string");
    const char c = Peek();
    if (c == quote) {
      Next();
      return ValidUtf8(out) || Error("string is not valid UTF-8");
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return Error("control character in a string");
    if (quote == '"' && c == '\\') {
      Next();
      if (!Escape(out)) return false;
      continue;
    }
    out += c;
    Next();
  }
}

bool TomlScanner::Escape(std::string& out) {
  if (Eof()) return Error("unterminated string");
  const char c = Peek();
  Next();
  switch (c) {
    case 'b':
      out += '\b';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'r':
      out += '\r';
      return true;
    case '"':
      out += '"';
      return true;
    case '\\':
      out += '\\';
      return true;
    case 'u':
      return Unicode(out, 4);
    case 'U':
      return Unicode(out, 8);
    default:
      return Error("unknown escape '\\" + OneLine(std::string(1, c)) + "' in a string");
  }
}

bool TomlScanner::Unicode(std::string& out, int hex_digits) {
  uint32_t cp = 0;
  for (int k = 0; k < hex_digits; ++k) {
    const char c = Peek();
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return Error("expected a hexadecimal digit in a \\u escape");
    cp = cp * 16 + uint32_t(d);
    Next();
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Error("\\u escape is not a Unicode scalar value");
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
  return true;
}

// Lead byte gives the sequence length; each continuation byte is 10xxxxxx.
bool TomlScanner::ValidUtf8(std::string_view s) {
  size_t k = 0;
  while (k < s.size()) {
    const auto c = static_cast<unsigned char>(s[k]);
    size_t extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if ((c >> 5) == 0x6) {
      extra = 1;
    } else if ((c >> 4) == 0xE) {
      extra = 2;
    } else if ((c >> 3) == 0x1E) {
      extra = 3;
    } else {
      return false;
    }
    if (k + extra >= s.size() && extra > 0) return false;
    for (size_t j = 1; j <= extra; ++j) {
      if ((static_cast<unsigned char>(s[k + j]) >> 6) != 0x2) return false;
    }
    k += extra + 1;
  }
  return true;
}

}  // namespace braid
