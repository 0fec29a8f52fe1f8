#include "symbolic_content.h"

namespace braid::symbolic {

std::string MaskText(uint64_t mask) {
  std::string out = "{";
  for (int i = 0; i < 64; ++i) {
    if ((mask >> i & 1) == 0) continue;
    if (out.size() > 1) out += ',';
    out += std::to_string(i);
  }
  return out + "}";
}

std::string ContentText(const Content& c) {
  switch (c.tag) {
    case Tag::kEmpty:
      return "nothing (empty)";
    case Tag::kARow:
      return "row " + std::to_string(c.row) + " of A";
    case Tag::kProduct:
      return "the product for row " + std::to_string(c.row);
    case Tag::kPartial:
      return "the partial for row " + std::to_string(c.row) + " over ranks " + MaskText(c.mask);
  }
  return "?";
}

std::string ColumnsText(int64_t col0, int64_t cols) {
  return "columns [" + std::to_string(col0) + ", " + std::to_string(col0 + cols) + ")";
}

bool AddContent(const Content& x, const Content& y, Content* out, std::string* why) {
  if (x.tag != Tag::kPartial || y.tag != Tag::kPartial) {
    *why = "adds " + ContentText(x) + " and " + ContentText(y) + "; only partials add";
    return false;
  }
  if (x.op != y.op) {
    *why = "adds a partial of op " + std::to_string(x.op) + " to one of op " + std::to_string(y.op);
    return false;
  }
  if (x.row != y.row) {
    *why = "adds the partial for row " + std::to_string(x.row) + " to the partial for row " + std::to_string(y.row);
    return false;
  }
  if (x.col0 != y.col0 || x.cols != y.cols) {
    *why = "adds the partial for row " + std::to_string(x.row) + " in " + ColumnsText(x.col0, x.cols) + " to one in " +
           ColumnsText(y.col0, y.cols);
    return false;
  }
  if (x.mask & y.mask) {
    *why = "partial for row " + std::to_string(x.row) + " counted twice (ranks " + MaskText(x.mask & y.mask) +
           " on both sides)";
    return false;
  }
  *out = {Tag::kPartial, x.row, x.mask | y.mask, x.op, x.col0, x.cols};
  return true;
}

}  // namespace braid::symbolic
