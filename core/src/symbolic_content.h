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
// `mask` (partials): the K shards summed in, bit q for columns [q·K/P,
// (q+1)·K/P) of A — rank q's shard in the tensor-parallel layout, so it
// reads as a set of ranks. It follows the data, not the rank that ran the
// GEMM: a Ulysses rank multiplies other ranks' shards.
// `col0`, `cols`: the columns the content spans — of A for a row of A (all
// of K, or a K shard), of C for a product or partial (the columns of the B it
// was multiplied by). A Ulysses rank multiplies its A by several blocks of
// B, so a product must say which columns of C it is.
struct Content {
  Tag tag = Tag::kEmpty;
  int64_t row = 0;
  uint64_t mask = 0;
  int op = 0;
  int64_t col0 = 0, cols = 0;
};

// "{0,2}": the ranks of a mask.
std::string MaskText(uint64_t mask);
// "row 3 of A", "the partial for row 3 over ranks {0,1}", ...
std::string ContentText(const Content& c);
// "columns [0, 8)".
std::string ColumnsText(int64_t col0, int64_t cols);
// x + y for two partials of one row, op and columns over disjoint rank
// sets; otherwise false with an error text in *why.
bool AddContent(const Content& x, const Content& y, Content* out, std::string* why);

}  // namespace braid::symbolic
