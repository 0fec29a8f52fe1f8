#include "braid/toml_reader.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace braid {

const TomlValue* TomlValue::Find(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &items[i];
  }
  return nullptr;
}

std::string_view TomlValue::KindName() const {
  switch (kind) {
    case Kind::kString:
      return "a string";
    case Kind::kInteger:
      return "an integer";
    case Kind::kFloat:
      return "a number";
    case Kind::kBool:
      return "a boolean";
    case Kind::kArray:
      return "an array";
    case Kind::kTable:
      return "a table";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 16;  // nested arrays; deeper input is refused, not recursed into

bool BareKeyChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view origin) : s_(text), origin_(origin) {}

  Result<TomlValue> Run() {
    root_.line = 1;
    root_.column = 1;
    TomlValue* table = &root_;
    while (true) {
      SkipBlanks();
      if (Eof()) break;
      const char c = Peek();
      if (c == '\n' || c == '\r' || c == '#') {
        if (!EndOfLine()) return Fail();
        continue;
      }
      if (c == '[') {
        table = Header();
      } else {
        if (!KeyValue(*table)) return Fail();
      }
      if (table == nullptr || !EndOfLine()) return Fail();
    }
    return std::move(root_);
  }

 private:
  // --- errors -------------------------------------------------------------
  bool Error(std::string msg) { return ErrorAt(line_, col_, std::move(msg)); }
  bool ErrorAt(int line, int col, std::string msg) {
    if (error_.empty()) {
      std::ostringstream os;
      os << origin_ << ':' << line << ':' << col << ": " << msg;
      error_ = os.str();
    }
    return false;
  }
  Status Fail() const { return Status::Invalid(error_); }

  // --- characters ---------------------------------------------------------
  bool Eof() const { return i_ >= s_.size(); }
  char Peek(size_t ahead = 0) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  void Next() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  void SkipBlanks() {
    while (!Eof() && (Peek() == ' ' || Peek() == '\t')) Next();
  }
  std::string Shown(char c) const {
    if (c >= 0x21 && c < 0x7f) return std::string("'") + c + "'";
    std::ostringstream os;
    os << "byte 0x" << std::hex << (unsigned(static_cast<unsigned char>(c)));
    return os.str();
  }

  // Blanks, an optional comment, then a newline or the end.
  bool EndOfLine() {
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

  // --- keys ---------------------------------------------------------------
  bool Key(std::vector<std::string>& path, std::vector<std::pair<int, int>>& where) {
    while (true) {
      SkipBlanks();
      where.emplace_back(line_, col_);
      std::string part;
      if (Peek() == '"' || Peek() == '\'') {
        if (!String(part)) return false;
      } else {
        while (!Eof() && BareKeyChar(Peek())) {
          part += Peek();
          Next();
        }
        if (part.empty()) {
          return Eof() ? Error("expected a key") : Error("expected a key, found " + Shown(Peek()));
        }
      }
      path.push_back(std::move(part));
      SkipBlanks();
      if (Peek() != '.') return true;
      Next();
    }
  }

  static TomlValue* Child(TomlValue* t, std::string_view key) {
    for (size_t k = 0; k < t->keys.size(); ++k) {
      if (t->keys[k] == key) return &t->items[k];
    }
    return nullptr;
  }

  // Walks (creating) the tables of `path` below `from`; arrays of tables
  // resolve to their last element, as TOML says.
  TomlValue* Walk(TomlValue* from, const std::vector<std::string>& path, size_t count,
                  const std::vector<std::pair<int, int>>& where) {
    TomlValue* t = from;
    for (size_t k = 0; k < count; ++k) {
      TomlValue* next = Child(t, path[k]);
      if (next == nullptr) {
        t->keys.push_back(path[k]);
        t->items.emplace_back();
        next = &t->items.back();
        next->line = where[k].first;
        next->column = where[k].second;
      } else if (next->kind == TomlValue::Kind::kArray && !next->items.empty() &&
                 next->items.back().kind == TomlValue::Kind::kTable && next->header_defined) {
        next = &next->items.back();
      } else if (next->kind != TomlValue::Kind::kTable) {
        ErrorAt(where[k].first, where[k].second,
                "key '" + OneLine(path[k]) + "' is already " + std::string(next->KindName()) + ", not a table");
        return nullptr;
      }
      t = next;
    }
    return t;
  }

  // [a.b] or [[a.b]]; returns the table that following keys go into.
  TomlValue* Header() {
    const int line = line_, col = col_;
    Next();
    const bool array = Peek() == '[';
    if (array) Next();
    std::vector<std::string> path;
    std::vector<std::pair<int, int>> where;
    if (!Key(path, where)) return nullptr;
    if (Peek() != ']' || (array && Peek(1) != ']')) {
      Error(array ? "expected ']]' to close the table header" : "expected ']' to close the table header");
      return nullptr;
    }
    Next();
    if (array) Next();
    TomlValue* parent = Walk(&root_, path, path.size() - 1, where);
    if (parent == nullptr) return nullptr;
    const std::string& last = path.back();
    TomlValue* node = Child(parent, last);
    if (array) {
      if (node == nullptr) {
        parent->keys.push_back(last);
        parent->items.emplace_back();
        node = &parent->items.back();
        node->kind = TomlValue::Kind::kArray;
        node->header_defined = true;
        node->line = line;
        node->column = col;
      } else if (node->kind != TomlValue::Kind::kArray || !node->header_defined) {
        ErrorAt(line, col, "[[" + OneLine(last) + "]] names " + std::string(node->KindName()) + " defined before");
        return nullptr;
      }
      node->items.emplace_back();
      node->items.back().line = line;
      node->items.back().column = col;
      return &node->items.back();
    }
    if (node == nullptr) {
      parent->keys.push_back(last);
      parent->items.emplace_back();
      node = &parent->items.back();
    } else if (node->kind != TomlValue::Kind::kTable) {
      ErrorAt(line, col, "key '" + OneLine(last) + "' is already " + std::string(node->KindName()) + ", not a table");
      return nullptr;
    } else if (node->header_defined) {
      ErrorAt(line, col, "table [" + OneLine(last) + "] is defined twice");
      return nullptr;
    }
    node->header_defined = true;
    node->line = line;
    node->column = col;
    return node;
  }

  bool KeyValue(TomlValue& table) {
    std::vector<std::string> path;
    std::vector<std::pair<int, int>> where;
    if (!Key(path, where)) return false;
    if (Peek() != '=') return Error("expected '=' after the key");
    Next();
    SkipBlanks();
    TomlValue* parent = Walk(&table, path, path.size() - 1, where);
    if (parent == nullptr) return false;
    if (parent->Find(path.back()) != nullptr) {
      return ErrorAt(where.back().first, where.back().second, "key '" + OneLine(path.back()) + "' is defined twice");
    }
    TomlValue v;
    if (!Value(v, 0)) return false;
    parent->keys.push_back(path.back());
    parent->items.push_back(std::move(v));
    return true;
  }

  // --- values -------------------------------------------------------------
  bool Value(TomlValue& v, int depth) {
    v.line = line_;
    v.column = col_;
    if (Eof()) return Error("expected a value");
    const char c = Peek();
    if (c == '"' || c == '\'') {
      v.kind = TomlValue::Kind::kString;
      return String(v.str);
    }
    if (c == '[') return Array(v, depth);
    if (c == '{') return Error("inline tables are not supported in Braid data files; use a [table]");
    if (s_.substr(i_).starts_with("true")) return Word(v, "true", true);
    if (s_.substr(i_).starts_with("false")) return Word(v, "false", false);
    if (c == '+' || c == '-' || (c >= '0' && c <= '9') || c == 'i' || c == 'n') return Number(v);
    return Error("expected a value, found " + Shown(c));
  }

  bool Word(TomlValue& v, std::string_view word, bool value) {
    for (size_t k = 0; k < word.size(); ++k) Next();
    if (BareKeyChar(Peek())) return Error("expected a value (true or false)");
    v.kind = TomlValue::Kind::kBool;
    v.boolean = value;
    return true;
  }

  bool Number(TomlValue& v) {
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
  bool SkipArrayFiller() {
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

  bool Array(TomlValue& v, int depth) {
    if (depth >= kMaxDepth) return Error("arrays are nested too deeply");
    v.kind = TomlValue::Kind::kArray;
    Next();
    while (true) {
      SkipArrayFiller();
      if (Eof()) return Error("unterminated array");
      if (Peek() == ']') {
        Next();
        return true;
      }
      TomlValue item;
      if (!Value(item, depth + 1)) return false;
      v.items.push_back(std::move(item));
      SkipArrayFiller();
      if (Peek() == ',') {
        Next();
      } else if (Peek() != ']') {
        return Eof() ? Error("unterminated array") : Error("expected ',' or ']' in an array, found " + Shown(Peek()));
      }
    }
  }

  bool String(std::string& out) {
    const char quote = Peek();
    if (s_.substr(i_).starts_with(std::string(3, quote))) {
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

  bool Escape(std::string& out) {
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

  bool Unicode(std::string& out, int hex_digits) {
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
  static bool ValidUtf8(std::string_view s) {
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

  std::string_view s_, origin_;
  size_t i_ = 0;
  int line_ = 1, col_ = 1;
  TomlValue root_;
  std::string error_;
};

}  // namespace

Result<TomlValue> ParseToml(std::string_view text, std::string_view origin) { return Parser(text, origin).Run(); }

}  // namespace braid
