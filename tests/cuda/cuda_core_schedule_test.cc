// The GEMM core's fused schedules (braid/core_schedule.h) and their proof
// (braid/core_schedule_check.h): every op, P and shape the backend builds
// is proved safe, and each kind of broken schedule is caught with a line
// naming the rank and what broke.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "braid/core_schedule_check.h"
#include "braid/fused_schedule_check.h"

namespace braid::cuda::fused {
namespace {

using ::testing::HasSubstr;

gemm::TileScheduler Sched(int64_t m, int64_t n, int group_m = 8) {
  gemm::TileScheduler s;
  s.m = m;
  s.n = n;
  s.group_m = group_m;
  return s;
}

std::vector<CoreRankSchedule> All(FusedOp op, const gemm::TileScheduler& sched, int ranks) {
  std::vector<CoreRankSchedule> all;
  for (int r = 0; r < ranks; ++r) {
    auto s = BuildCoreSchedule(op, sched, ranks, r);
    EXPECT_TRUE(s.ok()) << s.status().message();
    all.push_back(s.ok() ? std::move(s).value() : CoreRankSchedule{});
  }
  return all;
}

TEST(CudaCoreSchedule, EveryOpRankCountAndShapeIsProvedSafe) {
  int cases = 0;
  for (int p : {2, 3, 4, 8}) {
    // ag_gemm: blocks that end inside a tile, whole tiles, ragged columns, one tile-row.
    for (int64_t mb : {24, 100, 128, 256, 1000}) {
      for (int64_t n : {64, 200, 1024}) {
        for (int group : {1, 8}) {
          const gemm::TileScheduler s = Sched(mb * p, n, group);
          ASSERT_TRUE(CheckCoreSchedule(FusedOp::kAgGemm, s, p, All(FusedOp::kAgGemm, s, p)).ok())
              << "ag_gemm P " << p << " mb " << mb << " n " << n;
          ++cases;
        }
      }
    }
    // gemm_rs: blocks of whole tile-rows.
    for (int64_t mb : {128, 256, 1024}) {
      for (int64_t n : {64, 200, 1024}) {
        const gemm::TileScheduler s = Sched(mb * p, n);
        ASSERT_TRUE(CheckCoreSchedule(FusedOp::kGemmRs, s, p, All(FusedOp::kGemmRs, s, p)).ok())
            << "gemm_rs P " << p << " mb " << mb << " n " << n;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 4 * (5 * 3 * 2 + 3 * 3));
}

TEST(CudaCoreSchedule, TheProofCatchesEachBrokenAgGemmSchedule) {
  const gemm::TileScheduler s = Sched(4 * 256, 256);
  const int p = 4;
  const std::vector<CoreRankSchedule> good = All(FusedOp::kAgGemm, s, p);
  ASSERT_TRUE(CheckCoreSchedule(FusedOp::kAgGemm, s, p, good).ok());
  auto broken = [&](auto&& edit) {
    std::vector<CoreRankSchedule> all = good;
    edit(all[1]);
    return CheckCoreSchedule(FusedOp::kAgGemm, s, p, all).message();
  };
  EXPECT_THAT(broken([](CoreRankSchedule& r) { r.order[1] = r.order[0]; }), HasSubstr("rank 1: hands out tile"));
  // A tile of block 2 (rank 1's step 1) waiting only for step 0.
  EXPECT_THAT(broken([](CoreRankSchedule& r) {
                for (size_t i = 0; i < r.order.size(); ++i) {
                  if (r.step[i] == 1) {
                    r.step[i] = 0;
                    break;
                  }
                }
              }),
              HasSubstr("waits for step 0 but reads row 512, which arrives at step 1"));
  EXPECT_THAT(broken([](CoreRankSchedule& r) { r.pulls.pop_back(); }), HasSubstr("is raised by 0 pulls, not one"));
  EXPECT_THAT(broken([](CoreRankSchedule& r) { r.pulls[0].src = 3; }), HasSubstr("which does not own them"));
  EXPECT_THAT(broken([](CoreRankSchedule& r) { r.pulls.push_back(r.pulls[0]); }),
              HasSubstr("row 512 of A arrives twice"));
  EXPECT_THAT(broken([](CoreRankSchedule& r) { r.pulls[1].flag = 0; }), HasSubstr("a pull raises flag 0"));
}

TEST(CudaCoreSchedule, TheProofCatchesEachBrokenGemmRsSchedule) {
  const gemm::TileScheduler s = Sched(4 * 256, 256);
  const int p = 4;
  const std::vector<CoreRankSchedule> good = All(FusedOp::kGemmRs, s, p);
  ASSERT_TRUE(CheckCoreSchedule(FusedOp::kGemmRs, s, p, good).ok());
  std::vector<CoreRankSchedule> dropped = good;
  dropped[2].order.pop_back();
  EXPECT_THAT(CheckCoreSchedule(FusedOp::kGemmRs, s, p, dropped).message(),
              HasSubstr("rank 2: hands out 15 tiles of 16"));
  // Straddling blocks: 100 rows per owner with 128-row tiles.
  const gemm::TileScheduler ragged = Sched(4 * 100, 256);
  EXPECT_THAT(CheckCoreSchedule(FusedOp::kGemmRs, ragged, p, std::vector<CoreRankSchedule>(4)).message(),
              HasSubstr("hands out 0 tiles"));
  EXPECT_FALSE(BuildCoreSchedule(FusedOp::kGemmRs, ragged, p, 0).ok());
}

// Printed, not asserted: the proofs run before every cuda run with fused
// steps, so their cost at llama sizes belongs in the closing note.
TEST(CudaCoreSchedule, ProofCostAtLlamaSizes) {
  const auto t0 = std::chrono::steady_clock::now();
  const gemm::TileScheduler s = Sched(8192, 8192 / 8 * 8);
  for (FusedOp op : {FusedOp::kAgGemm, FusedOp::kGemmRs}) EXPECT_TRUE(CheckCoreSchedule(op, s, 8, All(op, s, 8)).ok());
  const auto t1 = std::chrono::steady_clock::now();
  FusedShape tasks;
  tasks.ranks = 8;
  tasks.m = 8192;
  tasks.n = 1024;
  tasks.k = 8192;
  tasks.comm_ctas = 8;
  tasks.compute_ctas = 124;
  for (FusedOp op : {FusedOp::kAgGemm, FusedOp::kGemmRs}) {
    tasks.op = op;
    EXPECT_TRUE(CheckFusedSchedule(tasks, BuildAllTables(tasks)).ok());
  }
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("schedule proofs at M 8192, P 8: core (N 8192) %.1f ms, task kernel (N/P 1024) %.1f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
}

}  // namespace
}  // namespace braid::cuda::fused
