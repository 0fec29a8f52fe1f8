#include "braid/core_schedule.h"

#include "gemm/arrival_tables.h"
#include "gemm/scatter_tables.h"
#include "gemm/tile_arrival_order.h"

namespace braid::cuda::fused {

Result<CoreRankSchedule> BuildCoreSchedule(FusedOp op, const gemm::TileScheduler& sched, int ranks, int rank) {
  CoreRankSchedule s;
  if (op == FusedOp::kGemmRs) {
    BRAID_ASSIGN_OR_RETURN(gemm::ScatterTables tables, gemm::ScatterTablesFor(sched, ranks, rank));
    s.order = std::move(tables.order);
    return s;
  }
  BRAID_ASSIGN_OR_RETURN(gemm::ArrivalTables tables, gemm::ArrivalTablesFor(sched, Algorithm::kFused, ranks, rank));
  BRAID_ASSIGN_OR_RETURN(const auto pieces, gemm::RowArrivalOrder(Algorithm::kFused, sched.m, ranks, rank));
  s.order = std::move(tables.order);
  s.step = std::move(tables.step);
  s.steps = tables.steps;
  const int64_t mb = sched.m / ranks;
  for (const gemm::RowArrival& piece : pieces) {
    if (piece.step == 0) continue;  // this rank's own block
    s.pulls.push_back({piece.row0, piece.rows, int(piece.row0 / mb), piece.step});
  }
  return s;
}

}  // namespace braid::cuda::fused
