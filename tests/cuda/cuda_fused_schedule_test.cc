// The fused kernel's schedule: the proofs of fused_schedule_check.h over
// every op × P × comm/compute CTA budget × shape (ragged tails included),
// the checker's own ability to fail, and the refusals of CheckFusedShape.
#include <gtest/gtest.h>

#include <cstdio>

#include "braid/fused_schedule.h"
#include "braid/fused_schedule_check.h"

namespace braid::cuda::fused {
namespace {

FusedShape Shape(FusedOp op, int p, int64_t mb, int64_t n, int64_t k, int comm, int compute) {
  FusedShape s;
  s.op = op;
  s.ranks = p;
  s.m = mb * p;
  s.n = n;
  s.k = k;
  s.comm_ctas = comm;
  s.compute_ctas = compute;
  return s;
}

TEST(CudaFusedSchedule, EveryOpRanksBudgetAndShapeIsProvedSafe) {
  struct Dims {
    int64_t mb, n, k;
  };
  // Whole tiles, ragged rows and columns, a block smaller than a tile, many column tiles.
  const Dims shapes[] = {{64, 128, 64}, {100, 100, 40}, {130, 70, 33}, {17, 200, 8}, {192, 64, 128}};
  int cases = 0;
  for (FusedOp op : {FusedOp::kAgGemm, FusedOp::kGemmRs}) {
    for (int p : {2, 4, 8}) {
      for (int comm : {1, 2, 3, 8, 32}) {
        for (int compute : {1, 5, 16}) {
          for (const Dims& d : shapes) {
            const FusedShape s = Shape(op, p, d.mb, d.n, d.k, comm, compute);
            ASSERT_TRUE(CheckFusedShape(s, DType::kBf16, comm + compute).ok());
            const Status proof = CheckFusedSchedule(s, BuildAllTables(s));
            ASSERT_TRUE(proof.ok()) << (op == FusedOp::kAgGemm ? "ag_gemm" : "gemm_rs") << " P=" << p
                                    << " comm=" << comm << " compute=" << compute << " mb=" << d.mb << " n=" << d.n
                                    << ": " << proof.message();
            ++cases;
          }
        }
      }
    }
  }
  std::printf("fused schedule proofs: %d cases (2 ops x 3 P x 5 comm budgets x 3 compute budgets x 5 shapes) hold\n",
              cases);
  EXPECT_EQ(cases, 450);
}

TEST(CudaFusedSchedule, AgGemmComputesTheLocalBlockFirstThenPullsInArrivalOrder) {
  const FusedShape s = Shape(FusedOp::kAgGemm, 4, 128, 64, 64, 2, 3);
  const RankTables t = BuildRankTables(s, 1);
  // The first compute CTA starts on rank 1's own rows, waiting on nothing.
  const FusedTask& first = t.tasks[size_t(t.cta_begin[2])];
  EXPECT_EQ(first.kind, kGemmTile);
  EXPECT_EQ(first.row0 / 128, 1);
  EXPECT_EQ(first.wait_count, 0);
  // Comm CTA 0 pulls from rank 2 first (the nearest peer), rank 0 last.
  EXPECT_EQ(t.tasks[size_t(t.cta_begin[0])].src, 2);
  EXPECT_EQ(t.tasks[size_t(t.cta_begin[1] - 1)].src, 0);
  EXPECT_EQ(t.flags, 3 * 2);  // 3 peers x 2 row tiles
}

TEST(CudaFusedSchedule, GemmRsComputesOtherBlocksFirstAndReducesOnCommCtas) {
  const FusedShape s = Shape(FusedOp::kGemmRs, 4, 64, 64, 64, 1, 1);
  const RankTables t = BuildRankTables(s, 2);
  ASSERT_EQ(t.ctas(), 2);
  EXPECT_EQ(t.tasks[size_t(t.cta_begin[1])].row0 / 64, 3);      // block of rank 3 first
  EXPECT_EQ(t.tasks[size_t(t.cta_begin[2] - 1)].row0 / 64, 2);  // own block last
  const FusedTask& reduce = t.tasks[0];
  EXPECT_EQ(reduce.kind, kReduceTile);
  EXPECT_EQ(reduce.wait_count, 4);  // every rank's partial tile
}

// The proof is not vacuous: each way of breaking a schedule is caught and named.
TEST(CudaFusedSchedule, TheProofCatchesAMissingWaitADoubleSetAnUnsetFlagAndACycle) {
  const FusedShape ag = Shape(FusedOp::kAgGemm, 2, 64, 64, 64, 1, 1);
  {
    auto t = BuildAllTables(ag);
    for (FusedTask& k : t[0].tasks) k.wait_count = 0;  // compute never waits for its pulled rows
    const Status st = CheckFusedSchedule(ag, t);
    EXPECT_NE(st.message().find("before rank 0 CTA 0 task 0"), std::string::npos) << st.message();
  }
  {
    auto t = BuildAllTables(ag);
    t[1].tasks[0].sets = -1;
    const Status st = CheckFusedSchedule(ag, t);
    EXPECT_NE(st.message().find("flag 0 of rank 1 is never set"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("waits on it forever"), std::string::npos) << st.message();
  }
  {
    auto t = BuildAllTables(ag);
    t[0].tasks[1].sets = 0;  // a compute task sets the pull's flag too
    EXPECT_NE(CheckFusedSchedule(ag, t).message().find("is set twice"), std::string::npos);
  }
  {
    auto t = BuildAllTables(ag);
    // The pull waits on its own flag: a cycle.
    t[0].waits.push_back({0, 0});
    t[0].tasks[0].wait_begin = int32_t(t[0].waits.size() - 1);
    t[0].tasks[0].wait_count = 1;
    EXPECT_NE(CheckFusedSchedule(ag, t).message().find("deadlock"), std::string::npos);
  }
  const FusedShape rs = Shape(FusedOp::kGemmRs, 4, 64, 64, 64, 1, 2);
  {
    auto t = BuildAllTables(rs);
    t[3].tasks[0].wait_count = 3;  // the reduce forgets the last rank
    const Status st = CheckFusedSchedule(rs, t);
    EXPECT_NE(st.message().find("reads rank 3's partial"), std::string::npos) << st.message();
  }
  {
    auto t = BuildAllTables(rs);
    t[1].tasks[size_t(t[1].cta_begin[1])].cols = 1;  // a partial tile shrinks: elements never written
    EXPECT_NE(CheckFusedSchedule(rs, t).message().find("is written 0 times"), std::string::npos);
  }
}

TEST(CudaFusedSchedule, ShapesAndBudgetsTheKernelCannotRunAreRefusedInOneLine) {
  auto msg = [](FusedShape s, DType d, int sms) { return CheckFusedShape(s, d, sms).message(); };
  const FusedShape ok = Shape(FusedOp::kAgGemm, 4, 64, 64, 64, 4, 4);
  EXPECT_TRUE(CheckFusedShape(ok, DType::kFp16, 132).ok());
  FusedShape s = ok;
  s.comm_ctas = 0;
  EXPECT_NE(msg(s, DType::kBf16, 132).find("outside the fused kernel's 1..32"), std::string::npos);
  s.comm_ctas = 33;
  EXPECT_NE(msg(s, DType::kBf16, 132).find("outside"), std::string::npos);
  s = ok;
  s.compute_ctas = 0;
  EXPECT_NE(msg(s, DType::kBf16, 132).find("leaves no SM"), std::string::npos);
  EXPECT_NE(msg(ok, DType::kBf16, 7).find("leaves no SM for the fused GEMM (7 SMs per rank)"), std::string::npos);
  EXPECT_NE(msg(ok, DType::kFp32, 132).find("bf16 or fp16"), std::string::npos);
  s = ok;
  s.m = 258;
  EXPECT_NE(msg(s, DType::kBf16, 132).find("M divisible by P=4"), std::string::npos);
  s = ok;
  s.ranks = 16;
  s.m = 16 * 64;
  EXPECT_NE(msg(s, DType::kBf16, 132).find("2 to 8 ranks"), std::string::npos);
  s = ok;
  s.m = 1 << 20;
  s.k = 1 << 12;
  EXPECT_NE(msg(s, DType::kBf16, 132).find("32 bits"), std::string::npos);
  EXPECT_EQ(DefaultCommCtas(2, 132), 2);
  EXPECT_EQ(DefaultCommCtas(8, 132), 8);
  EXPECT_EQ(DefaultCommCtas(8, 6), 3);
}

}  // namespace
}  // namespace braid::cuda::fused
