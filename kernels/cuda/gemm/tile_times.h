// When each group of a launch's tiles ran (issue 56 point 4, "events per
// tile group"): CUPTI sees one kernel for a whole fused step, so the kernel
// stamps its own tiles. A group is what the host wants to see apart: an
// all-gather GEMM's arrival step (the tiles that waited for one block of
// rows), a reduce-scatter GEMM's owner (the tiles whose partials go to one
// rank). The first thread to start a tile of group g after its wait lowers
// first_start[g] to %globaltimer, the thread that finishes the tile's
// stores raises last_end[g]: one 64-bit atomic each per tile, against
// microseconds of work per tile.
//
// The host resets first_start to all ones and last_end to zero before each
// launch (memsets on the launch's stream) and reads both after it; the
// values are %globaltimer nanoseconds, which the host places on CUPTI's
// clock by the kernel's own activity record (tile_group_events.h). Plain
// data, standard C++ only (the kernels' sources are C++17). All null: no
// stamps.
#pragma once

#include <cstdint>

namespace braid::cuda::gemm {

struct TileTimes {
  const int32_t* group = nullptr;   // device, one per hand-out position (ArrivalWait::order's index)
  uint64_t* first_start = nullptr;  // device, one per group
  uint64_t* last_end = nullptr;     // device, one per group
};

}  // namespace braid::cuda::gemm
