// A reduce-scatter GEMM's epilogue (issue 56 point 3): each rank computes a
// partial product of all m rows, and the rows belong, block by block, to the
// ranks that will sum them. Instead of storing a finished tile into c, the
// epilogue stores it into its owner's receive buffer (a peer pointer), in the
// slot this rank writes, and then raises the owner's counter of that tile
// (release, system scope), so the owner's reduction (partial_reduce.h) can
// sum a tile as soon as every source has sent it rather than after the
// whole GEMM.
//
// ScatterEpilogue is plain data passed by value to both kernels (ranks 0:
// the plain epilogue into c); standard C++ only, as arrival_wait.h.
// ScatterTablesFor (scatter_tables.h) gives the hand-out order that staggers
// the owners and checks the shape; ScatterTileOf below is the index math the
// kernels and the host tests share.
#pragma once

#include <cstdint>

#include "gemm/gemm_hd.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

constexpr int kMaxScatterRanks = 8;

// The product's m rows are `ranks` blocks of block_rows; block q belongs to
// rank q. Each finished tile goes to its owner's receive buffer, slot
// `rank`, and then the owner's counter of that tile is incremented.
struct ScatterEpilogue {
  int32_t ranks = 0;       // 0: the plain epilogue into c
  int32_t rank = 0;        // this rank: its slot in every owner's receive buffer
  int64_t block_rows = 0;  // m / ranks
  // Owner q's receive buffer as this rank addresses it (peer pointer):
  // `ranks` slots of block_rows × n elements, row-major with leading
  // dimension n, slot s at s·block_rows·n.
  void* slots[kMaxScatterRanks] = {};
  // Owner q's tile counters: one uint32 per output tile of its block, tile
  // (i, j) at i·tiles_n + j (i = row tile within the block, j = column
  // tile). Each source adds 1 per run, so after run `epoch` (1, 2, ...)
  // every counter holds epoch·ranks.
  uint32_t* counters[kMaxScatterRanks] = {};
};

// Where one output tile of the scatter goes.
struct ScatterTile {
  int owner = 0;        // the rank whose block holds the tile's rows
  int64_t offset = 0;   // elements from slots[owner] to the tile's first element (row0, col0)
  int64_t counter = 0;  // index into counters[owner]: i·tiles_n + j
};

// @pre s.block_rows a multiple of sched.tile_m (ScatterTablesFor checks it),
// so the tile lies in one block.
BRAID_GEMM_HD ScatterTile ScatterTileOf(const ScatterEpilogue& s, const TileScheduler& sched, const TileCoord& t) {
  ScatterTile d;
  d.owner = int(t.row0 / s.block_rows);
  const int64_t row_in_block = t.row0 - int64_t(d.owner) * s.block_rows;
  d.offset = (int64_t(s.rank) * s.block_rows + row_in_block) * sched.n + t.col0;
  d.counter = (row_in_block / sched.tile_m) * sched.tiles_n() + t.tile_n;
  return d;
}

}  // namespace braid::cuda::gemm
