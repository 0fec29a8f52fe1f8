// The event a plan step becomes when a backend records it, so that every
// backend names, sizes and matches its events alike.
#pragma once

#include <cstdint>

#include "braid/event.h"
#include "braid/plan.h"

namespace braid {

// Step `s` of `rank` in `iteration`, run over [start_ns, end_ns): its lane,
// kind (EventKindOf), name, bytes, flops, chunk, ring step, peer, and its
// match id as the correlation (-1 where it has none). A backend that knows
// more (bytes it really moved, a CUPTI correlation) overwrites that field.
Event EventOfStep(const Step& s, int iteration, int rank, int64_t start_ns, int64_t end_ns);

}  // namespace braid
