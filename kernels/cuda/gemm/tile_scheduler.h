// The persistent tile scheduler: which output tile a CTA computes next.
//
// The grid is at most one CTA per SM (PersistentGrid); CTA c computes the
// linear tiles c, c + grid, c + 2·grid, ... (so every tile exactly once), and
// TileAt maps a linear index to an (m, n) tile in a grouped raster:
// `group_m` tile-rows at a time, column by column inside the group. Why: the
// CTAs running at the same moment hold consecutive linear indices; in plain
// row-major order they would share one row of A but stream a whole row of B
// tiles through L2, while a group of group_m rows shares group_m rows of A and
// only a few columns of B, both small enough to stay in L2 (the classic
// "grouped ordering" of tiled GEMMs).
//
// Ragged edges: the last tile-row / tile-column may be partial; TileAt gives
// its true rows and cols, and the kernels mask (sm80: zero-filled cp.async and
// masked stores; sm90: TMA fills out-of-bounds elements with zero and the
// epilogue masks its stores).
#pragma once

#include <cstdint>

#include "gemm/gemm_hd.h"

namespace braid::cuda::gemm {

struct TileCoord {
  int64_t tile_m = 0, tile_n = 0;  // tile indices
  int64_t row0 = 0, col0 = 0;      // first output row and column
  int64_t rows = 0, cols = 0;      // valid rows and columns (< the tile at a ragged edge)
};

struct TileScheduler {
  int64_t m = 0, n = 0;  // output shape
  int tile_m = 128, tile_n = 128;
  int group_m = 8;  // tile-rows per raster group, >= 1

  BRAID_GEMM_HD int64_t tiles_m() const { return (m + tile_m - 1) / tile_m; }
  BRAID_GEMM_HD int64_t tiles_n() const { return (n + tile_n - 1) / tile_n; }
  BRAID_GEMM_HD int64_t total() const { return tiles_m() * tiles_n(); }

  // @pre 0 <= linear < total()
  BRAID_GEMM_HD TileCoord TileAt(int64_t linear) const {
    const int64_t per_group = int64_t(group_m) * tiles_n();
    const int64_t group = linear / per_group;
    const int64_t first_m = group * group_m;
    const int64_t left = tiles_m() - first_m;
    const int64_t rows_in_group = left < group_m ? left : group_m;  // the last group may be shorter
    const int64_t in_group = linear - group * per_group;
    TileCoord t;
    t.tile_m = first_m + in_group % rows_in_group;
    t.tile_n = in_group / rows_in_group;
    t.row0 = t.tile_m * tile_m;
    t.col0 = t.tile_n * tile_n;
    t.rows = m - t.row0 < tile_m ? m - t.row0 : tile_m;
    t.cols = n - t.col0 < tile_n ? n - t.col0 : tile_n;
    return t;
  }

  // Tiles CTA `cta` of a grid of `grid` computes: cta, cta + grid, ...
  BRAID_GEMM_HD int64_t TilesOfCta(int cta, int grid) const {
    return cta < total() ? (total() - cta + grid - 1) / grid : 0;
  }
};

// One CTA per SM, fewer when there are fewer tiles: a persistent CTA keeps
// its shared-memory ring and barriers across tiles, and no wave tail of
// half-empty SMs is launched.
inline int PersistentGrid(int64_t tiles, int num_sms) {
  return int(tiles < int64_t(num_sms) ? tiles : int64_t(num_sms));
}

}  // namespace braid::cuda::gemm
