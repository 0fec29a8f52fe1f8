#include "braid/view/level_of_detail.h"

#include <algorithm>
#include <cmath>

#include "gallop.h"

namespace braid::view {

std::vector<DrawBlock> FoldForDrawing(const TimelineRow& row, int64_t t0, int64_t t1, double ns_per_px, double min_px) {
  std::vector<DrawBlock> out;
  const auto [a, b] = VisibleEvents(row, t0, t1);
  const int64_t min_ns = std::max<int64_t>(1, int64_t(std::ceil(ns_per_px * min_px)));
  const auto& ev = row.events;
  size_t i = a;
  while (i < b) {
    const DrawnEvent& e = ev[i];
    DrawBlock block{e.start_ns, e.end_ns, i, 1, e.kind, false};
    if (e.end_ns - e.start_ns >= min_ns) {
      out.push_back(block);
      ++i;
      continue;
    }
    size_t next = i + 1;
    while (next < b) {
      // Every event before the first whose running max end reaches
      // block end + min_ns ends within the block's last pixels: fold them.
      const auto jump = GallopLowerBound(row.max_end.begin() + ptrdiff_t(next), row.max_end.begin() + ptrdiff_t(b),
                                         block.end_ns + min_ns);
      const size_t j = size_t(jump - row.max_end.begin());
      if (j > next) {
        block.end_ns = std::max(block.end_ns, row.max_end[j - 1]);
        if (!block.mixed_kinds) {
          // Kinds are checked only at the fold's ends: lanes hold one kind.
          block.mixed_kinds = ev[j - 1].kind != block.kind;
        }
        next = j;
        continue;
      }
      // The next event reaches further: fold it only when it is narrow and
      // starts within min_ns of the block.
      const DrawnEvent& n = ev[next];
      if (n.end_ns - n.start_ns >= min_ns || n.start_ns >= block.end_ns + min_ns) break;
      block.end_ns = std::max(block.end_ns, n.end_ns);
      block.mixed_kinds = block.mixed_kinds || n.kind != block.kind;
      ++next;
    }
    block.count = next - i;
    out.push_back(block);
    i = next;
  }
  return out;
}

}  // namespace braid::view
