// Every algorithm × op × P × chunk count must reproduce the plain A·B.
#include <gtest/gtest.h>

#include <string>

#include "braid/cpu_backend.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::VerifyOnce;

void ExpectVerifies(const Plan& plan, const RunOptions& options = VerifyOnce(),
                    const CpuBackendOptions& cpu_options = {}) {
  CpuBackend cpu(cpu_options);
  Result<RunOutput> out = cpu.Run(plan, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error << " on rank " << out->verify.worst_rank;
  EXPECT_LE(out->verify.max_rel_error, 1e-5);
  EXPECT_EQ(out->compute_dtype, "fp32");
}

TEST(CpuBackendSweep, EveryAlgorithmOpTpAndChunkCountVerifies) {
  int verified = 0;
  for (Algorithm algo :
       {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDirect}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
      // direct sends every block or partial straight to its owner; gemm_ar it refuses.
      if (algo == Algorithm::kDirect && op == Op::kGemmAr) continue;
      for (int p : {1, 2, 3, 4, 8}) {
        for (int chunks : {1, 2, 4}) {
          if (algo == Algorithm::kSerial && chunks != 1) continue;
          // M/P = 4·chunks: divisible by chunks, and by 2·chunks for bidir halves.
          const int lanes = 1 + (p + chunks) % 2;
          const Plan plan = MustBuild(op, int64_t(p) * chunks * 4, 8 * p, 8 * p, p, algo, chunks, lanes);
          SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
          ASSERT_EQ(plan.tp(), p);
          ExpectVerifies(plan);
          if (!::testing::Test::HasFailure()) ++verified;
        }
      }
    }
  }
  EXPECT_EQ(verified, 150 + 30);  // direct: 2 ops × 5 P × 3 chunk counts
}

TEST(CpuBackend, UnevenChunkSplitsVerify) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    for (int p : {1, 2, 3, 4}) {
      const Plan plan = MustBuild(op, 8 * p, 4 * p, 4 * p, p, Algorithm::kChunked, 3, 2, {1, 2, 1});
      SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
      ExpectVerifies(plan);
    }
  }
}

TEST(CpuBackend, AllReduceOfRowsNotDivisibleByPVerifies) {
  // gemm_ar serial: one all-reduce over M rows in uneven (and empty) segments.
  for (int64_t m : {3, 10, 13}) {
    const Plan plan = MustBuild(Op::kGemmAr, m, 12, 16, 4, Algorithm::kSerial);
    SCOPED_TRACE(plan.workload.Describe());
    ExpectVerifies(plan);
  }
}

TEST(CpuBackend, WarmupAndTimedIterationsKeepTheResult) {
  RunOptions o = VerifyOnce();
  o.warmup = 2;
  o.iters = 3;
  ExpectVerifies(MustBuild(Op::kGemmRs, 32, 16, 16, 4, Algorithm::kRing, 2, 2), o);
  ExpectVerifies(MustBuild(Op::kAgGemm, 32, 16, 16, 4, Algorithm::kChunked, 2, 2), o);
}

TEST(CpuBackend, PacedLinksStillVerify) {
  CpuBackendOptions paced;
  paced.link_gbps = 50;
  paced.link_latency_us = 20;
  ExpectVerifies(MustBuild(Op::kGemmAr, 16, 16, 16, 4, Algorithm::kBidirRing, 2, 2), VerifyOnce(), paced);
  ExpectVerifies(MustBuild(Op::kGemmRs, 16, 16, 16, 4, Algorithm::kDirect, 2, 2), VerifyOnce(), paced);
}

TEST(CpuBackend, ReducedPrecisionRequestsAreComputedInFp32WithANote) {
  const Plan plan = MustBuild(Op::kGemmRs, 16, 16, 16, 2, Algorithm::kRing, 1, 1, {}, DType::kBf16);
  CpuBackend cpu;
  Result<RunOutput> out = cpu.Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok);
  EXPECT_EQ(out->compute_dtype, "fp32");
  ASSERT_EQ(out->notes.size(), 1u);
  EXPECT_EQ(out->notes[0], "bf16 requested: the cpu backend computes and moves fp32");
}

TEST(CpuBackend, SameSeedSameResultOtherSeedOtherData) {
  // Verification compares against A·B of the same seed, so both verify;
  // determinism shows in a bitwise-equal error figure.
  const Plan plan = MustBuild(Op::kGemmAr, 16, 16, 16, 2, Algorithm::kRing);
  CpuBackend cpu;
  RunOptions o = VerifyOnce();
  auto a = cpu.Run(plan, o), b = cpu.Run(plan, o);
  o.seed = 7;
  auto c = cpu.Run(plan, o);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->verify.max_rel_error, b->verify.max_rel_error);
  EXPECT_TRUE(c->verify.ok);
}

TEST(CpuBackend, NameIsCpu) { EXPECT_EQ(CpuBackend().name(), "cpu"); }

}  // namespace
}  // namespace braid
