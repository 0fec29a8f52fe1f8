// One table of names per enum, read both ways: printing a value (NameIn) and
// parsing a name (ValueNamed, ParseNamed) use the same {value, name} pairs,
// so the two directions cannot drift apart, and a refusal lists the names in
// the table's order.
//
//   constexpr NameTable<Op, 3> kOpNames{{{Op::kAgGemm, "ag_gemm"}, ...}};
//   static_assert(IsOneToOne(kOpNames));
//   std::string_view OpName(Op op) { return NameIn(kOpNames, op); }
//   Result<Op> ParseOp(std::string_view name) { return ParseNamed(kOpNames, "op", name); }
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid {

template <typename E>
struct NamedValue {
  E value;
  std::string_view name;
};

template <typename E, size_t N>
using NameTable = std::array<NamedValue<E>, N>;

// No value named twice and no name used twice: what makes parse and print
// inverse to each other. For a static_assert beside each table.
template <typename E, size_t N>
constexpr bool IsOneToOne(const NameTable<E, N>& table) {
  for (size_t i = 0; i < N; ++i) {
    if (table[i].name.empty()) return false;
    for (size_t j = i + 1; j < N; ++j) {
      if (table[i].value == table[j].value || table[i].name == table[j].name) return false;
    }
  }
  return true;
}

// `value`'s name; "?" for a value the table lacks (an out-of-range cast).
template <typename E, size_t N>
constexpr std::string_view NameIn(const NameTable<E, N>& table, E value) {
  for (const NamedValue<E>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// The value named exactly `name` (case and spaces count); nullopt for any
// other text.
template <typename E, size_t N>
constexpr std::optional<E> ValueNamed(const NameTable<E, N>& table, std::string_view name) {
  for (const NamedValue<E>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// The names in table order, joined by ", " (a refusal's "known:" list).
template <typename E, size_t N>
std::string NamesIn(const NameTable<E, N>& table) {
  std::string out;
  for (const NamedValue<E>& entry : table) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

// ValueNamed, or Invalid "unknown <what> '<name>' (known: <NamesIn>)" with
// `name` quoted on one line.
template <typename E, size_t N>
Result<E> ParseNamed(const NameTable<E, N>& table, std::string_view what, std::string_view name) {
  if (std::optional<E> value = ValueNamed(table, name)) return *value;
  return Status::Invalid("unknown " + std::string(what) + " '" + OneLine(name) + "' (known: " + NamesIn(table) + ")");
}

}  // namespace braid
