#include "gemm/tile_arrival_order.h"

#include <algorithm>
#include <string>

namespace braid::cuda::gemm {

Result<std::vector<RowArrival>> RowArrivalOrder(Algorithm algorithm, int64_t m, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    return Status::Invalid("rank " + std::to_string(rank) + " is outside 0.." + std::to_string(ranks - 1));
  if (m < 1 || m % ranks != 0)
    return Status::Invalid("M = " + std::to_string(m) + " is not a positive multiple of P = " + std::to_string(ranks) +
                           " (the all-gather moves M/P-row blocks)");
  const int64_t mb = m / ranks;
  auto block = [&](int q) { return ((q % ranks) + ranks) % ranks; };
  std::vector<RowArrival> out{{int64_t(rank) * mb, mb, 0}};
  for (int s = 1; s < ranks; ++s) {
    switch (algorithm) {
      case Algorithm::kRing:
      case Algorithm::kDirect:
        out.push_back({block(rank - s) * mb, mb, s});
        break;
      case Algorithm::kFused:
        out.push_back({block(rank + s) * mb, mb, s});
        break;
      case Algorithm::kBidirRing:
        if (mb % 2 != 0)
          return Status::Invalid("bidir_ring moves half blocks: M/P = " + std::to_string(mb) + " must be even");
        out.push_back({block(rank - s) * mb, mb / 2, s});
        out.push_back({block(rank + s) * mb + mb / 2, mb / 2, s});
        break;
      default:
        return Status::Invalid("tile arrival order: algorithm " + std::string(AlgorithmName(algorithm)) +
                               " is not a peer-to-peer all-gather (ring, direct, bidir_ring, fused)");
    }
  }
  return out;
}

std::vector<ArrivalTile> OrderTilesByArrival(const TileScheduler& sched, const std::vector<RowArrival>& arrivals) {
  // The step at which each tile-row is complete: the latest piece it overlaps.
  std::vector<int> row_ready(size_t(sched.tiles_m()), 0);
  for (const RowArrival& a : arrivals) {
    const int64_t first = a.row0 / sched.tile_m, last = (a.row0 + a.rows - 1) / sched.tile_m;
    for (int64_t t = first; t <= last; ++t) row_ready[size_t(t)] = std::max(row_ready[size_t(t)], a.step);
  }
  std::vector<ArrivalTile> out;
  out.reserve(size_t(sched.total()));
  for (int64_t i = 0; i < sched.total(); ++i) out.push_back({i, row_ready[size_t(sched.TileAt(i).tile_m)]});
  std::stable_sort(out.begin(), out.end(),
                   [](const ArrivalTile& a, const ArrivalTile& b) { return a.ready_step < b.ready_step; });
  return out;
}

}  // namespace braid::cuda::gemm
