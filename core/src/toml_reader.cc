#include "braid/toml_reader.h"

#include <string>
#include <vector>

#include "toml_scanner.h"

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

// The structural half: [tables], [[arrays of tables]], dotted keys, arrays.
class Parser : TomlScanner {
 public:
  Parser(std::string_view text, std::string_view origin) : TomlScanner(text, origin) {}

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
    if (Rest().starts_with("true")) return Word(v, "true", true);
    if (Rest().starts_with("false")) return Word(v, "false", false);
    if (c == '+' || c == '-' || (c >= '0' && c <= '9') || c == 'i' || c == 'n') return Number(v);
    return Error("expected a value, found " + Shown(c));
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
  TomlValue root_;
};

}  // namespace

Result<TomlValue> ParseToml(std::string_view text, std::string_view origin) { return Parser(text, origin).Run(); }

}  // namespace braid
