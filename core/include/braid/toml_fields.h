// Typed fields of one table of a data file, with errors that name file,
// line, column and the field's full name ("h100.toml:9:17: intra.latency_us
// must be a positive number").
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "braid/status.h"
#include "braid/toml_reader.h"

namespace braid {

class TomlFields {
 public:
  // `prefix` is the table's dotted name plus '.', or "" for the root.
  TomlFields(const TomlValue& table, std::string_view origin, std::string prefix);

  Result<std::string> String(const char* key) const;
  Result<std::string> OptionalString(const char* key, std::string fallback) const;
  Result<double> Positive(const char* key) const;                      // > 0
  Result<double> Number(const char* key, double lo, double hi) const;  // lo <= x <= hi
  Result<int64_t> Integer(const char* key, int64_t lo, int64_t hi) const;
  Result<bool> OptionalBool(const char* key, bool fallback) const;
  // The sub-table under `key`; NotFound-style Invalid when absent.
  Result<const TomlValue*> Table(const char* key) const;

  // A misspelt optional field would silently take its default: refuse any
  // key not in `known`, listing the known ones.
  Status OnlyKnownKeys(std::initializer_list<std::string_view> known) const;

  std::string Where(const TomlValue& v) const;  // "file:line:col"
  std::string Name(std::string_view key) const { return prefix_ + std::string(key); }

 private:
  Result<const TomlValue*> Required(const char* key) const;
  Status Bad(const TomlValue& v, const char* key, const std::string& rule) const;
  const TomlValue& table_;
  std::string origin_;
  std::string prefix_;
};

}  // namespace braid
