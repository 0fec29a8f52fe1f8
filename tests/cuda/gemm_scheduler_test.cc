// The GEMM core's persistent tile scheduler (kernels/cuda/gemm/
// tile_scheduler.h): every tile exactly once over the CTAs of a persistent
// grid, the grouped raster order, ragged edges.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {
namespace {

TileScheduler Sched(int64_t m, int64_t n, int group_m) {
  TileScheduler s;
  s.m = m;
  s.n = n;
  s.group_m = group_m;
  return s;
}

// Walks the grid as the kernels do (CTA c: c, c + grid, ...) and returns how
// often each (tile_m, tile_n) was computed.
std::vector<int> Coverage(const TileScheduler& s, int grid) {
  std::vector<int> seen(size_t(s.total()), 0);
  for (int cta = 0; cta < grid; ++cta) {
    int64_t count = 0;
    for (int64_t t = cta; t < s.total(); t += grid, ++count) {
      const TileCoord c = s.TileAt(t);
      EXPECT_GE(c.tile_m, 0);
      EXPECT_LT(c.tile_m, s.tiles_m());
      EXPECT_GE(c.tile_n, 0);
      EXPECT_LT(c.tile_n, s.tiles_n());
      ++seen[size_t(c.tile_m * s.tiles_n() + c.tile_n)];
    }
    EXPECT_EQ(count, s.TilesOfCta(cta, grid)) << "cta " << cta;
  }
  return seen;
}

TEST(GemmTileScheduler, EveryTileExactlyOnceOverAPersistentGrid) {
  for (int64_t m : {1, 127, 128, 129, 1000, 8192})
    for (int64_t n : {8, 128, 136, 1280, 7168})
      for (int group_m : {1, 3, 8})
        for (int sms : {1, 7, 132}) {
          const TileScheduler s = Sched(m, n, group_m);
          const int grid = PersistentGrid(s.total(), sms);
          for (int v : Coverage(s, grid)) ASSERT_EQ(v, 1) << m << "x" << n << " group " << group_m << " sms " << sms;
        }
}

TEST(GemmTileScheduler, GroupedRasterWalksColumnsOfAGroupOfRows) {
  // 4 × 3 tiles, groups of 2 tile-rows: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2), then rows 2-3.
  const TileScheduler s = Sched(4 * 128, 3 * 128, 2);
  const std::vector<std::pair<int64_t, int64_t>> want = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2},
                                                         {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2}};
  for (int64_t t = 0; t < s.total(); ++t) {
    const TileCoord c = s.TileAt(t);
    EXPECT_EQ(std::make_pair(c.tile_m, c.tile_n), want[size_t(t)]) << "linear " << t;
  }
}

TEST(GemmTileScheduler, ShortLastGroupStaysInsideTheMatrix) {
  // 5 tile-rows, groups of 2: the last group has one row and walks it left to right.
  const TileScheduler s = Sched(5 * 128, 3 * 128, 2);
  for (int64_t t = 12; t < 15; ++t) {
    const TileCoord c = s.TileAt(t);
    EXPECT_EQ(c.tile_m, 4);
    EXPECT_EQ(c.tile_n, t - 12);
  }
}

TEST(GemmTileScheduler, RaggedEdgesGiveTheirTrueExtent) {
  const TileScheduler s = Sched(300, 136, 8);  // 3 × 2 tiles: last row 44, last column 8
  std::set<std::pair<int64_t, int64_t>> extents;
  int64_t area = 0;
  for (int64_t t = 0; t < s.total(); ++t) {
    const TileCoord c = s.TileAt(t);
    EXPECT_EQ(c.row0, c.tile_m * 128);
    EXPECT_EQ(c.col0, c.tile_n * 128);
    EXPECT_EQ(c.rows, c.tile_m == 2 ? 44 : 128);
    EXPECT_EQ(c.cols, c.tile_n == 1 ? 8 : 128);
    area += c.rows * c.cols;
  }
  EXPECT_EQ(area, 300 * 136);
}

TEST(GemmTileScheduler, PersistentGridIsOneCtaPerSmOrPerTile) {
  EXPECT_EQ(PersistentGrid(4096, 132), 132);
  EXPECT_EQ(PersistentGrid(10, 132), 10);
  const TileScheduler s = Sched(8192, 8192, 8);  // 64 × 64 tiles over 132 SMs
  EXPECT_EQ(s.TilesOfCta(0, 132), 32);           // 4096 = 31·132 + 4: CTAs 0-3 take one more
  EXPECT_EQ(s.TilesOfCta(3, 132), 32);
  EXPECT_EQ(s.TilesOfCta(4, 132), 31);
  const TileScheduler few = Sched(2 * 128, 5 * 128, 8);  // 10 tiles: CTAs past the tenth get none
  EXPECT_EQ(few.TilesOfCta(9, 132), 1);
  EXPECT_EQ(few.TilesOfCta(10, 132), 0);
  EXPECT_EQ(few.TilesOfCta(131, 132), 0);
}

}  // namespace
}  // namespace braid::cuda::gemm
