// PartialReduce (partial_reduce.h) as plain data, with the index math the
// reduce kernel and the host tests share and the host's check of it.
// Standard C++ only; the launch is in partial_reduce.h (CUDA builds).
#pragma once

#include <cstdint>

#include "braid/status.h"
#include "gemm/gemm_hd.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

// The owner's side of a reduce-scatter GEMM (scatter_epilogue.h): its block
// (block_rows × n) is the sum of the `ranks` partials its sources stored in
// its receive buffer; each tile of the block is summed as soon as its
// counter says every source has stored it.
struct PartialReduce {  // plain data
  int32_t ranks = 0, rank = 0;
  int64_t block_rows = 0, n = 0;
  int32_t tile_m = 0, tile_n = 0;      // the GEMM's tile: counters are per tile
  int32_t dtype = 0;                   // 0 bf16, 1 fp16
  const void* slots = nullptr;         // this rank's receive buffer (ranks slots)
  const uint32_t* counters = nullptr;  // this rank's counters
  uint32_t epoch = 0;
  void* out = nullptr;  // block_rows × n, row-major, ld n
  uint64_t timeout_ns = 0;
  uint32_t* timed_out = nullptr;  // host-mapped: 1 + tile index on a timeout, then trap (as ArrivalWait)
  // Added: the GEMM's raster group (TileScheduler::group_m); 0 walks the
  // block's tiles row by row. With the GEMM's group_m, and block_rows /
  // tile_m a multiple of it, the reduce walks the block's tiles in the order
  // every source hands them out (ScatterTables.order), so it meets them
  // roughly as they are finished. The result does not depend on it.
  int32_t group_m = 0;
};

// The block's tiles in the order the reduce walks them: CTA c of the grid
// takes the c-th, (c + ctas)-th, ...
BRAID_GEMM_HD TileScheduler ReduceScheduler(const PartialReduce& r) {
  TileScheduler s;
  s.m = r.block_rows;
  s.n = r.n;
  s.tile_m = r.tile_m;
  s.tile_n = r.tile_n;
  s.group_m = r.group_m > 0 ? r.group_m : 1;  // group 1: row-major
  return s;
}

// The tile's counter: i·tiles_n + j, as ScatterTileOf counts it on the GEMM side.
BRAID_GEMM_HD int64_t ReduceCounter(const TileScheduler& block, const TileCoord& t) {
  return t.tile_m * block.tiles_n() + t.tile_n;
}

// A tile of the block as 8-element pieces (n and tile_n are multiples of
// 8, so a ragged column tile is still whole pieces: the mask is by piece).
BRAID_GEMM_HD int64_t ReducePieces(const TileCoord& t) { return t.rows * (t.cols / 8); }

// Piece v's first element, in elements from the start of a slot and of out
// (both block_rows × n with leading dimension n).
// @pre 0 <= v < ReducePieces(t)
BRAID_GEMM_HD int64_t ReducePieceOffset(const TileCoord& t, int64_t n, int64_t v) {
  const int64_t pieces = t.cols / 8;
  return (t.row0 + v / pieces) * n + t.col0 + (v % pieces) * 8;
}

// kInvalidArgument naming the constraint: ranks outside 2..8, rank outside
// 0..ranks−1, block_rows < 1, n < 1 or not a multiple of 8 (16-byte loads
// of 8 elements), tile_m < 1, tile_n < 1 or not a multiple of 8, dtype not
// 0 or 1, a null or not 16-byte-aligned slots / out, null counters, epoch 0.
Status CheckPartialReduce(const PartialReduce& r);

}  // namespace braid::cuda::gemm
