// An Event with only what the metrics read: iteration, rank, kind and times.
#pragma once

#include <cstdint>

#include "braid/event.h"

namespace braid::testing {

inline Event TimedEvent(int iteration, int rank, EventKind kind, int64_t start_ns, int64_t end_ns) {
  Event e;
  e.iteration = iteration;
  e.rank = rank;
  e.kind = kind;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  return e;
}

}  // namespace braid::testing
