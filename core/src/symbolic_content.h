// The symbolic contents of buffer rows in the plan checker's abstract
// execution (CheckPlanSemantics, plan_check.h), and how contents add.
#pragma once

#include <cstdint>
#include <string>

// Names this generic live in their own namespace, away from braid's API.
namespace braid::symbolic {

enum class Tag : uint8_t { kEmpty, kARow, kProduct, kPartial };

// `op`: layer plans give every GEMM op its own A and C, so contents name the
// op (Plan::ops index) they belong to; single-op plans use 0.
struct Content {
  Tag tag = Tag::kEmpty;
  int64_t row = 0;
  uint64_t mask = 0;
  int op = 0;
};

// "{0,2}": the ranks of a mask.
std::string MaskText(uint64_t mask);
// "row 3 of A", "the partial for row 3 over ranks {0,1}", ...
std::string ContentText(const Content& c);
// x + y for two partials of one row (and op) over disjoint rank sets;
// otherwise false with an error text in *why.
bool AddContent(const Content& x, const Content& y, Content* out, std::string* why);

}  // namespace braid::symbolic
