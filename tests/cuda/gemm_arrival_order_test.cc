// The all-gather GEMM's tile order by arrival of A's rows (kernels/cuda/gemm/
// tile_arrival_order.h): the plan's block order per algorithm, every tile
// once, local tiles first, straddling tiles waiting for their later block.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "gemm/tile_arrival_order.h"

namespace braid::cuda::gemm {
namespace {

using ::testing::HasSubstr;

std::vector<int> Blocks(const std::vector<RowArrival>& a, int64_t mb) {
  std::vector<int> out;
  for (const RowArrival& x : a) out.push_back(int(x.row0 / mb));
  return out;
}

TEST(GemmArrivalOrder, RingAndDirectReceiveFromRMinusS) {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kDirect}) {
    const auto order = RowArrivalOrder(a, 4 * 256, 4, 1);
    ASSERT_TRUE(order.ok()) << order.status().message();
    EXPECT_EQ(Blocks(*order, 256), (std::vector<int>{1, 0, 3, 2}));
    for (size_t s = 0; s < order->size(); ++s) EXPECT_EQ((*order)[s].step, int(s));
  }
}

TEST(GemmArrivalOrder, FusedPullsNearestPeerFirst) {
  const auto order = RowArrivalOrder(Algorithm::kFused, 4 * 256, 4, 1);
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(Blocks(*order, 256), (std::vector<int>{1, 2, 3, 0}));
}

TEST(GemmArrivalOrder, BidirRingMovesHalvesBothWays) {
  const auto order = RowArrivalOrder(Algorithm::kBidirRing, 4 * 256, 4, 0);
  ASSERT_TRUE(order.ok());
  // Step 1: first half of block 3 (from r−1), second half of block 1 (from r+1).
  ASSERT_EQ(order->size(), 7u);
  EXPECT_EQ((*order)[1].row0, 3 * 256);
  EXPECT_EQ((*order)[1].rows, 128);
  EXPECT_EQ((*order)[2].row0, 1 * 256 + 128);
  EXPECT_EQ((*order)[2].step, 1);
  int64_t rows = 0;
  for (const RowArrival& x : *order) rows += x.rows;
  EXPECT_EQ(rows, 4 * 256);
}

TEST(GemmArrivalOrder, RefusesWhatIsNotAPeerToPeerAllGather) {
  EXPECT_THAT(RowArrivalOrder(Algorithm::kChunked, 1024, 4, 0).status().message(), HasSubstr("chunked"));
  EXPECT_THAT(RowArrivalOrder(Algorithm::kRing, 1000, 3, 0).status().message(), HasSubstr("multiple of P = 3"));
  EXPECT_THAT(RowArrivalOrder(Algorithm::kRing, 1024, 4, 4).status().message(), HasSubstr("outside 0..3"));
  EXPECT_THAT(RowArrivalOrder(Algorithm::kBidirRing, 4 * 255, 4, 0).status().message(), HasSubstr("must be even"));
}

TEST(GemmArrivalOrder, EveryTileOnceLocalFirstStepsNonDecreasing) {
  TileScheduler s;
  s.m = 8 * 512;
  s.n = 1280;
  const int p = 8, r = 5;
  const auto order = RowArrivalOrder(Algorithm::kRing, s.m, p, r);
  ASSERT_TRUE(order.ok());
  const std::vector<ArrivalTile> tiles = OrderTilesByArrival(s, *order);
  ASSERT_EQ(int64_t(tiles.size()), s.total());
  std::vector<int> seen(size_t(s.total()), 0);
  for (size_t i = 0; i < tiles.size(); ++i) {
    ++seen[size_t(tiles[i].linear)];
    if (i > 0) {
      EXPECT_LE(tiles[i - 1].ready_step, tiles[i].ready_step);
    }
    const TileCoord c = s.TileAt(tiles[i].linear);
    const int block = int(c.row0 / 512);
    EXPECT_EQ(tiles[i].ready_step, (r - block + p) % p) << "tile row " << c.tile_m;
  }
  for (int v : seen) EXPECT_EQ(v, 1);
  // The first 4 × 10 tiles are the local block's (512 rows = 4 tile-rows, 10 tile-columns).
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(s.TileAt(tiles[i].linear).row0 / 512, r);
}

TEST(GemmArrivalOrder, WithinAStepTheRasterOrderIsKept) {
  TileScheduler s;
  s.m = 2 * 1024;
  s.n = 1024;
  const auto order = RowArrivalOrder(Algorithm::kDirect, s.m, 2, 0);
  ASSERT_TRUE(order.ok());
  const std::vector<ArrivalTile> tiles = OrderTilesByArrival(s, *order);
  for (size_t i = 1; i < tiles.size(); ++i) {
    if (tiles[i].ready_step == tiles[i - 1].ready_step) {
      EXPECT_LT(tiles[i - 1].linear, tiles[i].linear);
    }
  }
}

TEST(GemmArrivalOrder, ATileStraddlingTwoBlocksWaitsForTheLaterOne) {
  TileScheduler s;
  s.m = 4 * 200;  // blocks of 200 rows; tile-row 1 (rows 128..255) spans blocks 0 and 1
  s.n = 128;
  const auto order = RowArrivalOrder(Algorithm::kRing, s.m, 4, 0);  // steps: block 0, 3, 2, 1
  ASSERT_TRUE(order.ok());
  const std::vector<ArrivalTile> tiles = OrderTilesByArrival(s, *order);
  for (const ArrivalTile& t : tiles) {
    const int64_t tm = s.TileAt(t.linear).tile_m;
    if (tm == 0) {
      EXPECT_EQ(t.ready_step, 0);
    } else if (tm == 1) {
      EXPECT_EQ(t.ready_step, 3);  // block 1 arrives last (step 3)
    }
  }
  EXPECT_EQ(s.TileAt(tiles.front().linear).tile_m, 0);
}

}  // namespace
}  // namespace braid::cuda::gemm
