#include "braid/toml_fields.h"

#include <algorithm>
#include <sstream>

namespace braid {

TomlFields::TomlFields(const TomlValue& table, std::string_view origin, std::string prefix)
    : table_(table), origin_(origin), prefix_(std::move(prefix)) {}

std::string TomlFields::Where(const TomlValue& v) const {
  std::ostringstream os;
  os << origin_ << ':' << v.line << ':' << v.column;
  return os.str();
}

Status TomlFields::Bad(const TomlValue& v, const char* key, const std::string& rule) const {
  return Status::Invalid(Where(v) + ": " + Name(key) + " " + rule + " (found " + std::string(v.KindName()) + ")");
}

Result<const TomlValue*> TomlFields::Required(const char* key) const {
  const TomlValue* v = table_.Find(key);
  if (v == nullptr) return Status::Invalid(origin_ + ": missing field '" + Name(key) + "'");
  return v;
}

Result<std::string> TomlFields::String(const char* key) const {
  BRAID_ASSIGN_OR_RETURN(auto v, Required(key));
  if (v->kind != TomlValue::Kind::kString) return Bad(*v, key, "must be a string");
  return v->str;
}

Result<std::string> TomlFields::OptionalString(const char* key, std::string fallback) const {
  if (table_.Find(key) == nullptr) return fallback;
  return String(key);
}

Result<double> TomlFields::Number(const char* key, double lo, double hi) const {
  BRAID_ASSIGN_OR_RETURN(auto v, Required(key));
  const TomlValue& x = *v;
  std::ostringstream rule;
  rule << "must be a number from " << lo << " to " << hi;
  if (x.kind != TomlValue::Kind::kFloat && x.kind != TomlValue::Kind::kInteger) return Bad(x, key, rule.str());
  if (!(x.number >= lo && x.number <= hi)) {
    return Status::Invalid(Where(x) + ": " + Name(key) + " " + rule.str());
  }
  return x.number;
}

Result<double> TomlFields::Positive(const char* key) const {
  BRAID_ASSIGN_OR_RETURN(auto v, Required(key));
  const TomlValue& x = *v;
  if ((x.kind != TomlValue::Kind::kFloat && x.kind != TomlValue::Kind::kInteger) || !(x.number > 0)) {
    return Status::Invalid(Where(x) + ": " + Name(key) + " must be a positive number");
  }
  return x.number;
}

Result<int64_t> TomlFields::Integer(const char* key, int64_t lo, int64_t hi) const {
  BRAID_ASSIGN_OR_RETURN(auto v, Required(key));
  const TomlValue& x = *v;
  if (x.kind != TomlValue::Kind::kInteger || x.integer < lo || x.integer > hi) {
    return Status::Invalid(Where(x) + ": " + Name(key) + " must be an integer between " + std::to_string(lo) + " and " +
                           std::to_string(hi));
  }
  return x.integer;
}

Result<bool> TomlFields::OptionalBool(const char* key, bool fallback) const {
  const TomlValue* v = table_.Find(key);
  if (v == nullptr) return fallback;
  if (v->kind != TomlValue::Kind::kBool) return Bad(*v, key, "must be true or false");
  return v->boolean;
}

Result<const TomlValue*> TomlFields::Table(const char* key) const {
  const TomlValue* v = table_.Find(key);
  if (v == nullptr) return Status::Invalid(origin_ + ": missing table [" + Name(key) + "]");
  if (v->kind != TomlValue::Kind::kTable) return Bad(*v, key, "must be a table");
  return v;
}

Status TomlFields::OnlyKnownKeys(std::initializer_list<std::string_view> known) const {
  // A table with no known field is another kind of file (a user pointed a
  // reader at the wrong file, or at a secret one): its keys are not echoed.
  const bool any_known = std::any_of(table_.keys.begin(), table_.keys.end(), [&](const std::string& k) {
    return std::find(known.begin(), known.end(), k) != known.end();
  });
  if (!table_.keys.empty() && !any_known) {
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + Name(k);
    return Status::Invalid(Where(table_.items[0]) + ": none of its fields is one this file takes (" + list +
                           "): not this kind of file");
  }
  for (size_t i = 0; i < table_.keys.size(); ++i) {
    if (std::find(known.begin(), known.end(), table_.keys[i]) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + Name(k);
    return Status::Invalid(Where(table_.items[i]) + ": unknown field '" + Name(OneLine(table_.keys[i])) +
                           "' (known: " + list + ")");
  }
  return Status::Ok();
}

}  // namespace braid
