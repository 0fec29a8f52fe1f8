#include "gemm/arrival_tables.h"

#include <algorithm>

#include "gemm/tile_arrival_order.h"

namespace braid::cuda::gemm {

Result<ArrivalTables> ArrivalTablesFor(const TileScheduler& sched, Algorithm algorithm, int ranks, int rank) {
  BRAID_ASSIGN_OR_RETURN(std::vector<RowArrival> arrivals, RowArrivalOrder(algorithm, sched.m, ranks, rank));
  const std::vector<ArrivalTile> tiles = OrderTilesByArrival(sched, arrivals);
  ArrivalTables t;
  t.order.reserve(tiles.size());
  t.step.reserve(tiles.size());
  for (const ArrivalTile& a : tiles) {
    t.order.push_back(a.linear);
    t.step.push_back(a.ready_step);
  }
  for (const RowArrival& a : arrivals) t.steps = std::max(t.steps, a.step + 1);
  return t;
}

}  // namespace braid::cuda::gemm
