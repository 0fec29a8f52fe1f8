// What the preset file's readers (preset_file.cc, dp_preset_file.cc) share
// beyond TomlFields: a value rule's one-line message and the date check.
#pragma once

#include <string>

#include "braid/status.h"
#include "braid/toml_fields.h"
#include "braid/toml_reader.h"

namespace braid::preset_fields {

// A value check that is not about the TOML type: "file:line:col: field rule".
inline Status BadValue(const TomlFields& f, const TomlValue& table, const char* key, const std::string& rule) {
  return Status::Invalid(f.Where(*table.Find(key)) + ": " + f.Name(key) + " " + rule);
}

// "YYYY-MM-DD" optionally followed by a time ("T..."): enough to order dates as text.
inline bool IsIsoDate(const std::string& s) {
  if (s.size() < 10 || (s.size() > 10 && s[10] != 'T' && s[10] != ' ')) return false;
  for (int i = 0; i < 10; ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9')) return false;
  }
  return true;
}

}  // namespace braid::preset_fields
