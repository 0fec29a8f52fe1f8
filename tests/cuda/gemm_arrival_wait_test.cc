// The tables an all-gather GEMM's kernels read to wait for A's rows
// (kernels/cuda/gemm/arrival_wait.h): every tile once, in arrival order, each
// with the step whose flag it waits on, and the flags the comm side raises.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "gemm/arrival_tables.h"

namespace braid::cuda::gemm {
namespace {

TileScheduler Sched(int64_t m, int64_t n) {
  TileScheduler s;
  s.m = m;
  s.n = n;
  return s;
}

TEST(GemmArrivalWait, EveryTileOnceEachWithTheStepOfItsRows) {
  const TileScheduler sched = Sched(4 * 512, 1024);  // 4 blocks of 512 rows, 4 tile-rows each
  const auto t = ArrivalTablesFor(sched, Algorithm::kRing, 4, 1);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->order.size(), size_t(sched.total()));
  ASSERT_EQ(t->step.size(), t->order.size());
  EXPECT_EQ(t->steps, 4);
  std::vector<int64_t> sorted = t->order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(size_t(sched.total()));
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
  // Ring at rank 1: block 1 is local (step 0), then block 0, 3, 2.
  const int block_step[4] = {1, 0, 3, 2};
  for (size_t i = 0; i < t->order.size(); ++i) {
    const TileCoord c = sched.TileAt(t->order[i]);
    EXPECT_EQ(t->step[i], block_step[c.row0 / 512]) << i;
    if (i > 0) {
      EXPECT_LE(t->step[i - 1], t->step[i]) << i;  // handed out as they arrive
    }
  }
  EXPECT_EQ(t->step.front(), 0);  // the own block first: no wait before the first tiles
}

TEST(GemmArrivalWait, ATileAcrossTwoBlocksWaitsForTheLater) {
  // 4 blocks of 192 rows in 128-row tiles: tile-row 1 (rows 128-255) holds
  // rows of blocks 0 and 1.
  const TileScheduler sched = Sched(4 * 192, 256);
  const auto t = ArrivalTablesFor(sched, Algorithm::kRing, 4, 0);
  ASSERT_TRUE(t.ok()) << t.status().message();
  for (size_t i = 0; i < t->order.size(); ++i) {
    const TileCoord c = sched.TileAt(t->order[i]);
    if (c.row0 == 128) {
      EXPECT_EQ(t->step[i], 3) << "block 1 arrives last at rank 0 of a ring of 4";
    }
  }
}

TEST(GemmArrivalWait, OnlyPeerToPeerAllGathersHaveAnArrivalOrder) {
  const auto t = ArrivalTablesFor(Sched(1024, 256), Algorithm::kChunked, 4, 0);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  const auto uneven = ArrivalTablesFor(Sched(1000, 256), Algorithm::kRing, 3, 0);
  ASSERT_FALSE(uneven.ok());
}

}  // namespace
}  // namespace braid::cuda::gemm
