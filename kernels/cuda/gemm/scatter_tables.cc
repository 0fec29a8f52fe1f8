#include "gemm/scatter_tables.h"

#include <cstdint>
#include <string>

namespace braid::cuda::gemm {

namespace {

Status CheckShape(const TileScheduler& sched, int ranks, int rank) {
  if (ranks < 2 || ranks > kMaxScatterRanks)
    return Status::Invalid("reduce-scatter GEMM over " + std::to_string(ranks) + " ranks: it takes 2.." +
                           std::to_string(kMaxScatterRanks) + " (kMaxScatterRanks peer slots)");
  if (rank < 0 || rank >= ranks)
    return Status::Invalid("reduce-scatter GEMM rank " + std::to_string(rank) + " is outside 0.." +
                           std::to_string(ranks - 1));
  if (sched.m % ranks != 0)
    return Status::Invalid("reduce-scatter GEMM m = " + std::to_string(sched.m) + " is not divisible by " +
                           std::to_string(ranks) + " ranks (every owner gets the same block of rows)");
  const int64_t block_rows = sched.m / ranks;
  if (block_rows % sched.tile_m != 0)
    return Status::Invalid("reduce-scatter GEMM block rows m/P = " + std::to_string(block_rows) +
                           " is not a multiple of the tile's " + std::to_string(sched.tile_m) +
                           " rows (a tile must not straddle two owners)");
  return Status::Ok();
}

}  // namespace

Result<ScatterTables> ScatterTablesFor(const TileScheduler& sched, int ranks, int rank) {
  BRAID_RETURN_IF_ERROR(CheckShape(sched, ranks, rank));
  const int64_t block_rows = sched.m / ranks;
  std::vector<std::vector<int64_t>> by_owner(static_cast<size_t>(ranks));
  for (int64_t linear = 0; linear < sched.total(); ++linear)
    by_owner[size_t(sched.TileAt(linear).row0 / block_rows)].push_back(linear);
  ScatterTables t;
  t.tiles_n = sched.tiles_n();
  t.tiles_per_block = (block_rows / sched.tile_m) * t.tiles_n;
  t.order.reserve(size_t(sched.total()));
  for (int step = 1; step <= ranks; ++step) {
    const std::vector<int64_t>& block = by_owner[size_t((rank + step) % ranks)];
    t.order.insert(t.order.end(), block.begin(), block.end());
  }
  return t;
}

Status CheckScatterEpilogue(const TileScheduler& sched, const ScatterEpilogue& scatter) {
  BRAID_RETURN_IF_ERROR(CheckShape(sched, scatter.ranks, scatter.rank));
  if (scatter.block_rows != sched.m / scatter.ranks)
    return Status::Invalid("reduce-scatter GEMM block_rows = " + std::to_string(scatter.block_rows) +
                           " is not m / ranks = " + std::to_string(sched.m / scatter.ranks));
  for (int q = 0; q < scatter.ranks; ++q) {
    if (scatter.slots[q] == nullptr || scatter.counters[q] == nullptr)
      return Status::Invalid("reduce-scatter GEMM owner " + std::to_string(q) + " has no receive slots or counters");
    if (reinterpret_cast<uintptr_t>(scatter.slots[q]) % 16 != 0)
      return Status::Invalid("reduce-scatter GEMM owner " + std::to_string(q) +
                             "'s receive buffer is not 16-byte aligned (the reduce reads it in 16-byte loads)");
  }
  return Status::Ok();
}

}  // namespace braid::cuda::gemm
