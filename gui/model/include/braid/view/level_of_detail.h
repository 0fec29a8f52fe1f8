// Level of detail for drawing a row: events at least `min_px` wide are drawn
// one by one; runs of narrower events that follow each other within
// `min_px` are folded into one block that carries their count (Tracy's
// "zone merging"). The work is proportional to the number of blocks drawn,
// not to the events in the window: a fold jumps over its events with a
// binary search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "braid/event.h"
#include "braid/view/timeline.h"

namespace braid::view {

struct DrawBlock {
  int64_t start_ns = 0, end_ns = 0;  // stored times
  size_t first = 0;                  // index of its first event in the row
  size_t count = 1;                  // events it stands for (1: a single event)
  EventKind kind = EventKind::kCompute;
  bool mixed_kinds = false;  // a fold of events of more than one kind
};

// Blocks of `row` in the window [t0, t1) at `ns_per_px`, in time order.
// @pre ns_per_px > 0, min_px > 0
std::vector<DrawBlock> FoldForDrawing(const TimelineRow& row, int64_t t0, int64_t t1, double ns_per_px,
                                      double min_px = 3.0);

}  // namespace braid::view
