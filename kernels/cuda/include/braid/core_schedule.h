// The fused plans' schedule on the GEMM core (FusedEngine::kCore) as plain
// host data, one per rank: the order in which the core hands out its tiles
// and, for ag_gemm, the arrival step each tile waits for and the pulls that
// raise each step's flag. The backend builds every rank's, proves them
// together (core_schedule_check.h) and uploads its own
// (kernels/cuda/host/fused_core_step.cc).
//
// ag_gemm, rank r of P (M rows, blocks of M/P): step 0 is r's own block;
//   step s (1..P−1) brings block r+s, pulled by a copy from its owner, whose
//   input it is, and raises flag s once the copy is done; the core's tiles
//   go out by the step after which all their rows are here
//   (gemm/tile_arrival_order.h, `fused`).
// gemm_rs: the tiles go out in the ring's stagger (gemm/scatter_tables.h),
//   each to its owner's slot r, raising the owner's counter of that tile;
//   the owner's reduce waits for P raises per tile.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/fused_schedule.h"
#include "braid/status.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::fused {

// ag_gemm: rows [row0, row0 + rows) of rank src's A into the same rows of
// ours, then flag `flag` raised.
struct CorePull {
  int64_t row0 = 0, rows = 0;
  int src = 0;
  int flag = 0;
};

struct CoreRankSchedule {
  std::vector<int64_t> order;   // linear tile indices (TileAt) in hand-out order
  std::vector<int32_t> step;    // ag_gemm: each handed-out tile's arrival step; gemm_rs: empty
  std::vector<CorePull> pulls;  // ag_gemm, in issue order
  int steps = 0;                // ag_gemm: flags, one per arrival step (0 = own block, never raised)
};

// kInvalidArgument as the tables refuse (M not divisible by P, gemm_rs
// blocks that are not whole tile-rows, P outside 2..8).
Result<CoreRankSchedule> BuildCoreSchedule(FusedOp op, const gemm::TileScheduler& sched, int ranks, int rank);

}  // namespace braid::cuda::fused
