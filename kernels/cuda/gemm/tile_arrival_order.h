// The order in which an all-gather GEMM's tiles can start (issue 56 point 2):
// a tile needs its rows of A, and those arrive block by block in the plan's
// order, so the persistent scheduler should hand out the tiles whose rows are
// here first. Host C++ only; arrival_tables.h turns it into the tables
// the GEMM kernels read (arrival_wait.h).
//
// Arrival of rank r's gathered A (M rows, P blocks of M/P rows), by step:
//   step 0         r's own block (already local)
//   ring, direct   step s: block r−s (a ring passes it on from r−1; direct
//                  receives it straight from r−s) — core/src/ring_planner.cc,
//                  overlap_config.h
//   bidir_ring     step s: the first half of block r−s (the +1 ring) and the
//                  second half of block r+s (the −1 ring)
//   fused          step s: block r+s (the fused kernel's pulls, nearest peer
//                  first: braid/fused_schedule.h)
// Sub-chunks within a step are not told apart: a step's rows count as
// arrived when the whole step has.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/overlap_config.h"
#include "braid/status.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

// Rows [row0, row0 + rows) of the gathered A arrive at `step`.
struct RowArrival {
  int64_t row0 = 0, rows = 0;
  int step = 0;
};

// The pieces of A in arrival order (steps non-decreasing), covering rows
// 0..m once. kInvalidArgument for an algorithm that is not a peer-to-peer
// all-gather (ring, direct, bidir_ring, fused), P < 1, r outside 0..P−1,
// m not divisible by P, or (bidir_ring) M/P odd.
Result<std::vector<RowArrival>> RowArrivalOrder(Algorithm algorithm, int64_t m, int ranks, int rank);

struct ArrivalTile {
  int64_t linear = 0;  // the scheduler's linear tile index (TileAt)
  int ready_step = 0;  // the step after which all of its rows are here
};

// Every tile of `sched` once, ordered by ready step (the latest step among
// the rows it covers), and within a step by linear index, which keeps the
// grouped raster's L2 reuse inside each step. A tile that straddles two
// blocks (M/P not a multiple of tile_m) waits for the later one.
// @pre `arrivals` covers rows 0..sched.m (RowArrivalOrder's result).
std::vector<ArrivalTile> OrderTilesByArrival(const TileScheduler& sched, const std::vector<RowArrival>& arrivals);

}  // namespace braid::cuda::gemm
