// The fused steps on the GEMM core, seen inside (issue 56 point 4): CUPTI
// records one kernel for a whole fused step, so the core stamps each group
// of its tiles with %globaltimer (gemm/tile_times.h) and the host turns the
// stamps into events on the tracer's clock. A group is an all-gather's
// arrival step (the tiles that waited for one block of rows) or a
// reduce-scatter's owner (the tiles whose partials go to one rank).
//
// The stamps' clock is the GPU's %globaltimer, CUPTI's is its own: each
// launch's stamps are placed by the launch's own kernel record, the offset
// that splits the gap evenly between the kernel's start and its first tile
// and between its last tile and its end (launch latency and drain), and
// clipped to the kernel's span. A group's event is compute work inside the
// fused step's own event, on its lane: it adds no compute or flops to the
// metrics, it shows when the group ran.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "braid/event.h"
#include "braid/plan.h"

namespace braid::cuda {

struct TileGroupReading {
  int iteration = 0;  // timed iteration, 0-based
  int rank = 0;
  int step = 0;   // the fused step's id in the rank's plan
  int group = 0;  // arrival step (ag_gemm) or owner (gemm_rs)
  bool reduce_scatter = false;
  int source = -1;                               // ag_gemm: the rank whose rows the arrival step brings
  uint64_t first_start_ns = 0, last_end_ns = 0;  // %globaltimer; first > last: no tile of the group ran
};

// Whether a tracer record is the GEMM core's kernel (CUPTI names kernels
// as the compiler mangled them, which keeps the function's name).
bool IsCoreGemmKernel(std::string_view record_name);

// Whether an event is a tile group's (its step's name, then "/tiles."; no
// step name holds a '/').
bool IsTileGroupEvent(const Event& e);

// Adds to `events` (StepEvents' of the same records, kept in their order:
// iteration, rank, start, lane) the events of `readings`, placed by the
// core kernel records among `records` (the tracer's; same correlation ids).
// A reading whose launch has no record, no tile of whose group ran, or
// whose stamps are past any clock's reach (2^62 ns) gives no event.
void AddTileGroupEvents(const Plan& plan, const std::vector<Event>& records,
                        const std::vector<TileGroupReading>& readings, std::vector<Event>& events);

}  // namespace braid::cuda
