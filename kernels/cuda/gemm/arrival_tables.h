// The host side of ArrivalWait (arrival_wait.h): the tile order and each
// tile's step for one rank of an all-gather GEMM, from the plan's arrival
// order (tile_arrival_order.h). Host C++ only.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/overlap_config.h"
#include "braid/status.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

// The host side of `order` and `step`.
struct ArrivalTables {
  std::vector<int64_t> order;
  std::vector<int32_t> step;
  int steps = 0;  // flags the comm side raises: steps 0 .. steps - 1
};

// The tables for rank `rank` of `ranks` gathering A (sched.m rows) by
// `algorithm`'s order; kInvalidArgument as RowArrivalOrder refuses (an
// algorithm that is no peer-to-peer all-gather, M not divisible by P, ...).
Result<ArrivalTables> ArrivalTablesFor(const TileScheduler& sched, Algorithm algorithm, int ranks, int rank);

}  // namespace braid::cuda::gemm
