// A reduce-scatter GEMM's host tables and index math
// (kernels/cuda/gemm/scatter_epilogue.h, scatter_tables.h,
// partial_reduce_tiles.h): the hand-out order that staggers the owners,
// where every tile lands, the counters each owner holds, the order the
// owner's reduce walks them in, and the refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "gemm/partial_reduce_tiles.h"
#include "gemm/scatter_tables.h"

namespace braid::cuda::gemm {
namespace {

using ::testing::HasSubstr;

TileScheduler ScatterSched(int64_t m, int64_t n, int tile_m = 128, int tile_n = 128, int group_m = 8) {
  TileScheduler s;
  s.m = m;
  s.n = n;
  s.tile_m = tile_m;
  s.tile_n = tile_n;
  s.group_m = group_m;
  return s;
}

ScatterEpilogue EpilogueFor(const TileScheduler& sched, int ranks, int rank) {
  ScatterEpilogue e;
  e.ranks = ranks;
  e.rank = rank;
  e.block_rows = sched.m / ranks;
  return e;
}

int OwnerOf(const TileScheduler& sched, int ranks, int64_t linear) {
  return int(sched.TileAt(linear).row0 / (sched.m / ranks));
}

TEST(GemmScatter, OrderIsEveryTileOnceBlocksStaggeredFromTheNextRankAndTheOwnBlockLast) {
  for (int ranks : {2, 3, 4, 8}) {
    // 3 tile-rows per block (not a multiple of group_m: blocks are not whole
    // raster groups), and a ragged last column tile.
    const TileScheduler sched = ScatterSched(int64_t(ranks) * 384, 1000);
    for (int rank = 0; rank < ranks; ++rank) {
      const auto t = ScatterTablesFor(sched, ranks, rank);
      ASSERT_TRUE(t.ok()) << t.status().message();
      EXPECT_EQ(t->tiles_n, 8);
      EXPECT_EQ(t->tiles_per_block, 3 * 8);
      std::vector<int64_t> sorted = t->order;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int64_t> all(size_t(sched.total()));
      std::iota(all.begin(), all.end(), 0);
      ASSERT_EQ(sorted, all) << "P " << ranks << " rank " << rank;
      for (size_t i = 0; i < t->order.size(); ++i) {
        // The i-th tile belongs to the block handed out at step i / tiles_per_block.
        const int step = int(int64_t(i) / t->tiles_per_block) + 1;
        EXPECT_EQ(OwnerOf(sched, ranks, t->order[i]), (rank + step) % ranks) << "P " << ranks << " rank " << rank;
        if (i % size_t(t->tiles_per_block) != 0) {
          EXPECT_LT(t->order[i - 1], t->order[i]) << "raster order within a block";
        }
      }
      EXPECT_EQ(OwnerOf(sched, ranks, t->order.back()), rank) << "the own block goes last";
    }
  }
}

TEST(GemmScatter, AtEachPositionOfTheOrderTheSourcesSendToDistinctOwners) {
  const int ranks = 4;
  const TileScheduler sched = ScatterSched(ranks * 256, 512);
  std::vector<std::vector<int64_t>> orders;
  for (int rank = 0; rank < ranks; ++rank) orders.push_back(ScatterTablesFor(sched, ranks, rank)->order);
  for (size_t i = 0; i < orders[0].size(); ++i) {
    std::vector<int> owners;
    for (int rank = 0; rank < ranks; ++rank) owners.push_back(OwnerOf(sched, ranks, orders[size_t(rank)][i]));
    std::sort(owners.begin(), owners.end());
    EXPECT_EQ(std::unique(owners.begin(), owners.end()), owners.end()) << "position " << i;
  }
}

TEST(GemmScatter, EveryElementLandsOnceInItsOwnersSlotForThisRankAndEveryCounterIsRaisedOnce) {
  const int ranks = 3;
  const TileScheduler sched = ScatterSched(ranks * 256, 200);  // 2 tile-rows per block, ragged n
  const int64_t block_rows = sched.m / ranks, slot = block_rows * sched.n;
  for (int rank = 0; rank < ranks; ++rank) {
    const ScatterEpilogue e = EpilogueFor(sched, ranks, rank);
    std::vector<std::vector<int>> written(size_t(ranks), std::vector<int>(size_t(ranks * slot), 0));
    std::vector<std::vector<int>> raised(size_t(ranks), std::vector<int>(size_t(2 * sched.tiles_n()), 0));
    for (int64_t linear = 0; linear < sched.total(); ++linear) {
      const TileCoord c = sched.TileAt(linear);
      const ScatterTile d = ScatterTileOf(e, sched, c);
      ASSERT_EQ(d.owner, int(c.row0 / block_rows));
      ASSERT_GE(d.counter, 0);
      ASSERT_LT(d.counter, 2 * sched.tiles_n()) << "one counter per tile of the owner's block";
      ++raised[size_t(d.owner)][size_t(d.counter)];
      for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t col = 0; col < c.cols; ++col) {
          const int64_t at = d.offset + r * sched.n + col;  // as the kernels address it (ld n)
          ASSERT_GE(at, rank * slot) << "inside slot `rank`";
          ASSERT_LT(at, (rank + 1) * slot);
          // ... at the element's row within the owner's block.
          ASSERT_EQ(at - rank * slot, (c.row0 + r - d.owner * block_rows) * sched.n + c.col0 + col);
          ++written[size_t(d.owner)][size_t(at)];
        }
    }
    for (int q = 0; q < ranks; ++q) {
      for (int64_t at = 0; at < ranks * slot; ++at) {
        ASSERT_EQ(written[size_t(q)][size_t(at)], at / slot == rank ? 1 : 0) << "owner " << q << " element " << at;
      }
      EXPECT_THAT(raised[size_t(q)], ::testing::Each(1)) << "owner " << q;
    }
  }
}

TEST(GemmScatter, TheOwnersReduceWalksItsTilesInTheOrderTheSourcesSendThem) {
  const int ranks = 4;
  for (int group_m : {8, 4, 1}) {
    // 8 tile-rows per block: whole raster groups of 8, 4 or 1.
    const TileScheduler sched = ScatterSched(ranks * 1024, 1280, 128, 128, group_m);
    const auto t = ScatterTablesFor(sched, ranks, 2);
    ASSERT_TRUE(t.ok());
    PartialReduce r;
    r.ranks = ranks;
    r.block_rows = sched.m / ranks;
    r.n = sched.n;
    r.tile_m = sched.tile_m;
    r.tile_n = sched.tile_n;
    r.group_m = group_m;
    const TileScheduler block = ReduceScheduler(r);
    ASSERT_EQ(block.total(), t->tiles_per_block);
    const ScatterEpilogue e = EpilogueFor(sched, ranks, 2);
    for (int q = 0; q < ranks; ++q) {
      std::vector<int64_t> sent, walked;
      for (int64_t linear : t->order) {
        const ScatterTile d = ScatterTileOf(e, sched, sched.TileAt(linear));
        if (d.owner == q) sent.push_back(d.counter);
      }
      for (int64_t k = 0; k < block.total(); ++k) walked.push_back(ReduceCounter(block, block.TileAt(k)));
      EXPECT_EQ(walked, sent) << "group_m " << group_m << " owner " << q;
    }
  }
}

TEST(GemmScatter, WithoutARasterGroupTheReduceWalksTheCountersInOrder) {
  PartialReduce r;
  r.block_rows = 300;  // a ragged last row tile
  r.n = 264;           // and column tile
  r.tile_m = 128;
  r.tile_n = 128;
  const TileScheduler block = ReduceScheduler(r);
  ASSERT_EQ(block.total(), 3 * 3);
  for (int64_t k = 0; k < block.total(); ++k) EXPECT_EQ(ReduceCounter(block, block.TileAt(k)), k);
  EXPECT_EQ(block.TileAt(8).rows, 300 - 256);
  EXPECT_EQ(block.TileAt(8).cols, 264 - 256);
}

// The whole chain on the host, as the kernels index it: P sources scatter
// their partials (ScatterTileOf, rows at ld n) and raise counters, then each
// owner's reduce, two CTAs taking alternate tiles (ReduceScheduler), sums
// every 8-element piece (ReducePieceOffset) of the P slots once its counter
// holds P. Each output element must be written once, with the sum of the
// sources' values at its row of the product. Both sm_90a tile widths (the
// wide one's tiles are 128 × 256), each with a ragged n.
void ScatterThenReduce(int tile_n, int64_t cols);

TEST(GemmScatter, ScatterThenReduceSumsEveryElementOfEveryBlockOnce) {
  for (const auto& [tile_n, cols] : {std::pair{128, 200}, {256, 520}}) {
    SCOPED_TRACE("tile_n " + std::to_string(tile_n));
    ScatterThenReduce(tile_n, cols);
  }
}

void ScatterThenReduce(int tile_n, int64_t cols) {
  const int ranks = 3, tile = 128;
  const TileScheduler sched = ScatterSched(ranks * 256, cols, tile, tile_n, 8);
  const int64_t block_rows = sched.m / ranks, n = sched.n, slot = block_rows * n;
  const auto partial = [&](int r, int64_t row, int64_t col) { return double(r * 1'000'000 + row * 1000 + col); };
  std::vector<std::vector<double>> recv(size_t(ranks), std::vector<double>(size_t(ranks * slot), -1.0));
  const size_t tiles_per_block = size_t((block_rows / tile) * sched.tiles_n());
  std::vector<std::vector<uint32_t>> counters(static_cast<size_t>(ranks), std::vector<uint32_t>(tiles_per_block, 0));
  for (int r = 0; r < ranks; ++r) {
    const auto t = ScatterTablesFor(sched, ranks, r);
    ASSERT_TRUE(t.ok());
    const ScatterEpilogue e = EpilogueFor(sched, ranks, r);
    for (int64_t linear : t->order) {
      const TileCoord c = sched.TileAt(linear);
      const ScatterTile d = ScatterTileOf(e, sched, c);
      for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t j = 0; j < c.cols; ++j)
          recv[size_t(d.owner)][size_t(d.offset + i * n + j)] = partial(r, c.row0 + i, c.col0 + j);
      ++counters[size_t(d.owner)][size_t(d.counter)];
    }
  }
  for (int q = 0; q < ranks; ++q) {
    PartialReduce red;
    red.ranks = ranks;
    red.rank = q;
    red.block_rows = block_rows;
    red.n = n;
    red.tile_m = tile;
    red.tile_n = tile_n;
    red.group_m = 8;
    const TileScheduler block = ReduceScheduler(red);
    std::vector<double> out(size_t(slot), 0.0);
    std::vector<int> writes(size_t(slot), 0);
    for (int cta = 0; cta < 2; ++cta)
      for (int64_t k = cta; k < block.total(); k += 2) {
        const TileCoord c = block.TileAt(k);
        ASSERT_EQ(counters[size_t(q)][size_t(ReduceCounter(block, c))], uint32_t(ranks)) << "tile " << k;
        for (int64_t v = 0; v < ReducePieces(c); ++v) {
          const int64_t at = ReducePieceOffset(c, n, v);
          for (int i = 0; i < 8; ++i) {
            double sum = 0;
            for (int s = 0; s < ranks; ++s) sum += recv[size_t(q)][size_t(s * slot + at + i)];
            out[size_t(at + i)] = sum;
            ++writes[size_t(at + i)];
          }
        }
      }
    EXPECT_THAT(writes, ::testing::Each(1)) << "owner " << q;
    for (int64_t row = 0; row < block_rows; ++row)
      for (int64_t col = 0; col < n; ++col) {
        double want = 0;
        for (int r = 0; r < ranks; ++r) want += partial(r, q * block_rows + row, col);
        ASSERT_EQ(out[size_t(row * n + col)], want) << "owner " << q << " row " << row << " col " << col;
      }
  }
}

Status TablesStatus(const TileScheduler& sched, int ranks, int rank) {
  return ScatterTablesFor(sched, ranks, rank).status();
}

TEST(GemmScatter, RefusalsNameTheConstraint) {
  const TileScheduler sched = ScatterSched(8 * 256, 512);
  EXPECT_THAT(TablesStatus(sched, 1, 0).message(), HasSubstr("it takes 2..8"));
  EXPECT_THAT(TablesStatus(sched, 9, 0).message(), HasSubstr("it takes 2..8"));
  EXPECT_THAT(TablesStatus(sched, 4, 4).message(), HasSubstr("rank 4 is outside 0..3"));
  EXPECT_THAT(TablesStatus(ScatterSched(1000, 512), 3, 0).message(), HasSubstr("not divisible by 3"));
  EXPECT_THAT(TablesStatus(ScatterSched(4 * 192, 512), 4, 0).message(), HasSubstr("must not straddle two owners"));
  EXPECT_EQ(TablesStatus(sched, 4, 0).code(), StatusCode::kOk);
  EXPECT_EQ(TablesStatus(sched, 9, 0).code(), StatusCode::kInvalidArgument);
}

TEST(GemmScatter, TheEpiloguesCheckWantsTheBlockRowsAndEveryOwnersAlignedBuffers) {
  const TileScheduler sched = ScatterSched(4 * 256, 512);
  alignas(16) static uint16_t slots[4][16];
  static uint32_t counters[4][4];
  ScatterEpilogue e = EpilogueFor(sched, 4, 1);
  for (int q = 0; q < 4; ++q) {
    e.slots[q] = slots[q];
    e.counters[q] = counters[q];
  }
  EXPECT_TRUE(CheckScatterEpilogue(sched, e).ok());
  ScatterEpilogue wrong_rows = e;
  wrong_rows.block_rows = 128;
  EXPECT_THAT(CheckScatterEpilogue(sched, wrong_rows).message(), HasSubstr("is not m / ranks = 256"));
  ScatterEpilogue no_counters = e;
  no_counters.counters[3] = nullptr;
  EXPECT_THAT(CheckScatterEpilogue(sched, no_counters).message(), HasSubstr("owner 3 has no receive slots"));
  ScatterEpilogue unaligned = e;
  unaligned.slots[2] = &slots[2][1];
  EXPECT_THAT(CheckScatterEpilogue(sched, unaligned).message(), HasSubstr("owner 2's receive buffer"));
  ScatterEpilogue too_many = e;
  too_many.ranks = 9;
  EXPECT_THAT(CheckScatterEpilogue(sched, too_many).message(), HasSubstr("2..8"));
}

TEST(GemmScatter, TheReducesCheckNamesTheConstraint) {
  alignas(16) static uint16_t slots[64], out[64];
  static uint32_t counters[4];
  PartialReduce ok;
  ok.ranks = 2;
  ok.rank = 1;
  ok.block_rows = 128;
  ok.n = 256;
  ok.tile_m = 128;
  ok.tile_n = 128;
  ok.slots = slots;
  ok.counters = counters;
  ok.out = out;
  ok.epoch = 1;
  EXPECT_TRUE(CheckPartialReduce(ok).ok());
  const auto message = [&](auto change) {
    PartialReduce r = ok;
    change(r);
    return CheckPartialReduce(r).message();
  };
  EXPECT_THAT(message([](PartialReduce& r) { r.ranks = 9; }), HasSubstr("ranks = 9 is outside 2..8"));
  EXPECT_THAT(message([](PartialReduce& r) { r.rank = 2; }), HasSubstr("rank = 2 is outside 0..1"));
  EXPECT_THAT(message([](PartialReduce& r) { r.n = 260; }), HasSubstr("n = 260 is not a positive multiple of 8"));
  EXPECT_THAT(message([](PartialReduce& r) { r.tile_n = 100; }), HasSubstr("tile_n a positive multiple of 8"));
  EXPECT_THAT(message([](PartialReduce& r) { r.dtype = 2; }), HasSubstr("dtype = 2"));
  EXPECT_THAT(message([](PartialReduce& r) { r.out = &out[1]; }), HasSubstr("out is null or not 16-byte aligned"));
  EXPECT_THAT(message([](PartialReduce& r) { r.counters = nullptr; }), HasSubstr("counters is null"));
  EXPECT_THAT(message([](PartialReduce& r) { r.epoch = 0; }), HasSubstr("epoch 0"));
}

}  // namespace
}  // namespace braid::cuda::gemm
