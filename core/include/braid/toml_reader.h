// Reader for Braid's data files (topologies, hardware, models, presets): a
// strict subset of TOML — comments, [tables], [[arrays of tables]], dotted
// keys, "basic" and 'literal' one-line strings, integers, floats, booleans
// and arrays. Every value keeps its line and column so that errors can name
// file, line and field. Standard library only, so that the runtime preset
// loader can use it without other dependencies.
//
// We first used Debian 12's toml++ 3.3; our fuzzer drove it into
// __builtin_unreachable and failed assertions on malformed input, which a
// reader of outside files must never do.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"

namespace braid {

struct TomlValue {
  enum class Kind { kString, kInteger, kFloat, kBool, kArray, kTable };
  Kind kind = Kind::kTable;
  std::string str;
  int64_t integer = 0;
  double number = 0;  // floats, and integers widened
  bool boolean = false;
  std::vector<std::string> keys;  // tables: keys[i] names items[i]
  std::vector<TomlValue> items;   // tables and arrays
  int line = 0, column = 0;
  bool header_defined = false;  // a [table] header named this table

  // Tables: the value under `key`, or nullptr.
  const TomlValue* Find(std::string_view key) const;
  std::string_view KindName() const;
};

// Parses `text`; `origin` (a file name) starts every error message:
// "h100.toml:7:16: expected a value".
Result<TomlValue> ParseToml(std::string_view text, std::string_view origin);

}  // namespace braid
