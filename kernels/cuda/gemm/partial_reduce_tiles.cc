#include "gemm/partial_reduce_tiles.h"

#include <string>

#include "gemm/scatter_epilogue.h"

namespace braid::cuda::gemm {

namespace {

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

Status CheckPartialReduce(const PartialReduce& r) {
  const auto bad = [](const std::string& what) { return Status::Invalid("partial reduce: " + what); };
  if (r.ranks < 2 || r.ranks > kMaxScatterRanks)
    return bad("ranks = " + std::to_string(r.ranks) + " is outside 2.." + std::to_string(kMaxScatterRanks));
  if (r.rank < 0 || r.rank >= r.ranks)
    return bad("rank = " + std::to_string(r.rank) + " is outside 0.." + std::to_string(r.ranks - 1));
  if (r.block_rows < 1) return bad("block_rows = " + std::to_string(r.block_rows) + " is below 1");
  if (r.n < 1 || r.n % 8 != 0)
    return bad("n = " + std::to_string(r.n) + " is not a positive multiple of 8 (rows are read in 16-byte loads)");
  if (r.tile_m < 1 || r.tile_n < 1 || r.tile_n % 8 != 0)
    return bad("tile " + std::to_string(r.tile_m) + "×" + std::to_string(r.tile_n) +
               ": tile_m must be ≥ 1 and tile_n a positive multiple of 8");
  if (r.dtype != 0 && r.dtype != 1)
    return bad("dtype = " + std::to_string(r.dtype) + " is neither 0 (bf16) nor 1 (fp16)");
  if (r.slots == nullptr || !Aligned16(r.slots)) return bad("slots is null or not 16-byte aligned");
  if (r.out == nullptr || !Aligned16(r.out)) return bad("out is null or not 16-byte aligned");
  if (r.counters == nullptr) return bad("counters is null");
  if (r.epoch == 0) return bad("epoch 0: the first run is epoch 1 (counters start at 0)");
  return Status::Ok();
}

}  // namespace braid::cuda::gemm
