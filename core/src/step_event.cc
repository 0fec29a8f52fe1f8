#include "braid/step_event.h"

namespace braid {

Event EventOfStep(const Step& s, int iteration, int rank, int64_t start_ns, int64_t end_ns) {
  Event e;
  e.iteration = iteration;
  e.rank = rank;
  e.lane = s.lane;
  e.kind = EventKindOf(s.kind);
  e.name = s.name;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.bytes = s.bytes;
  e.flops = s.flops;
  e.chunk = s.chunk;
  e.step = s.ring_step;
  e.peer = s.peer;
  e.correlation = s.match;
  return e;
}

}  // namespace braid
