// The host side of ScatterEpilogue (scatter_epilogue.h): the shape's checks
// and the order in which one rank of a reduce-scatter GEMM hands out its
// tiles. Host C++ only.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/status.h"
#include "gemm/scatter_epilogue.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

struct ScatterTables {
  // Linear tile indices (TileAt) in hand-out order: the tiles of block
  // (rank+1)%P first, then (rank+2)%P, ..., this rank's own block last, so
  // that at any moment the sources are sending to different owners (the
  // ring's stagger) and no owner's link takes every source at once. Within
  // a block, ascending linear index: the scheduler's grouped raster, for
  // its L2 reuse. Pass it as ArrivalWait.order with step and flags null.
  std::vector<int64_t> order;
  int64_t tiles_per_block = 0;  // counters each owner holds
  int64_t tiles_n = 0;
};

// kInvalidArgument naming the constraint: ranks outside 2..kMaxScatterRanks,
// rank outside 0..ranks−1, m not divisible by ranks, or block rows (m/ranks)
// not a multiple of the tile's rows (a tile must not straddle two owners:
// its counter and its slot are one owner's).
Result<ScatterTables> ScatterTablesFor(const TileScheduler& sched, int ranks, int rank);

// What RunGemm checks of a ScatterEpilogue against the plan's scheduler:
// the shape as ScatterTablesFor, block_rows = m / ranks, and for every
// owner q < ranks a slot buffer (16-byte aligned: the reduce reads it in
// 16-byte loads) and a counter array.
Status CheckScatterEpilogue(const TileScheduler& sched, const ScatterEpilogue& scatter);

}  // namespace braid::cuda::gemm
