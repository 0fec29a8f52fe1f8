// The GEMMs that stand in for attention (braid/compute_stand_in.h), and the
// key under which the real forwarder caches cuBLASLt's algorithm choice.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "braid/blaslt_api.h"
#include "braid/compute_stand_in.h"
#include "braid/layer_workload.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using cuda::ComputeStandIn;
using cuda::StandInFor;

double RelError(double got, double want) { return std::abs(got - want) / want; }

TEST(CudaComputeStandIn, MatchesTheStepsFlopsWithAlignedShapesAndFewGemms) {
  const double largest = 2.0 * double(cuda::kStandInMaxDim) * double(cuda::kStandInMaxDim) * double(cuda::kStandInMaxK);
  for (double flops = 1e6; flops < 1e14; flops *= 1.007) {
    const ComputeStandIn s = StandInFor(flops);
    ASSERT_GT(s.count, 0) << flops;
    EXPECT_LT(RelError(s.flops(), flops), flops >= 1e10 ? 0.015 : 0.04) << flops;
    for (int64_t d : {s.m, s.n, s.k}) {
      EXPECT_EQ(d % 16, 0) << flops;
      EXPECT_GE(d, 16) << flops;
    }
    EXPECT_LE(s.m, cuda::kStandInMaxDim);
    EXPECT_LE(s.n, cuda::kStandInMaxDim);
    EXPECT_LE(s.k, cuda::kStandInMaxK);
    // As few launches as the largest GEMM allows.
    EXPECT_EQ(s.count, std::max<int64_t>(1, int64_t(std::ceil(flops / largest)))) << flops;
  }
}

TEST(CudaComputeStandIn, AttentionOfAFewGflopsIsOneOrTwoLargeGemms) {
  // The H200's training block (hidden 1024, seq 2048, P 2): 4.3 GFLOP
  // forward and 10.7 GFLOP backward were 128 and 320 launches of 256³.
  const ComputeStandIn fwd = StandInFor(4294967296.0);
  EXPECT_EQ(fwd.count, 1);
  EXPECT_EQ(fwd.m, 2048);
  EXPECT_EQ(fwd.k, 512);
  const ComputeStandIn bwd = StandInFor(10737418240.0);
  EXPECT_EQ(bwd.count, 2);
  EXPECT_LT(RelError(bwd.flops(), 10737418240.0), 0.01);
}

TEST(CudaComputeStandIn, NoFlopsIsNoGemmAndTinyStepsOneSmallGemm) {
  for (double f : {0.0, -5.0, std::numeric_limits<double>::quiet_NaN()}) EXPECT_EQ(StandInFor(f).count, 0);
  EXPECT_EQ(StandInFor(std::numeric_limits<double>::infinity()).count, int64_t(1e15));
  EXPECT_EQ(StandInFor(1e300).k, cuda::kStandInMaxK);
  const ComputeStandIn tiny = StandInFor(100.0);
  EXPECT_EQ(tiny.count, 1);
  EXPECT_EQ(tiny.m * tiny.n * tiny.k, 16 * 16 * 16);
}

TEST(CudaMatmulKey, IgnoresAddressesButNotTheirAlignmentOrAnythingTheHeuristicSees) {
  alignas(256) static char buf[4096];
  cuda::MatmulArgs a;
  a.m = 64, a.n = 32, a.k = 16, a.lda = 16, a.ldb = 32, a.ldc = 32;
  a.a = buf, a.b = buf + 1024, a.c = buf + 2048;
  cuda::MatmulArgs moved = a;
  moved.a = buf + 256, moved.c = buf + 512;
  EXPECT_EQ(cuda::KeyOf(a), cuda::KeyOf(moved));
  EXPECT_EQ(cuda::KeyOf(a).align, 256);
  cuda::MatmulArgs misaligned = a;
  misaligned.b = buf + 1040;
  EXPECT_EQ(cuda::KeyOf(misaligned).align, 16);
  for (auto change :
       {+[](cuda::MatmulArgs& x) { x.m = 128; }, +[](cuda::MatmulArgs& x) { x.ldc = 48; },
        +[](cuda::MatmulArgs& x) { x.dtype = DType::kFp16; }, +[](cuda::MatmulArgs& x) { x.sm_count_target = 100; },
        +[](cuda::MatmulArgs& x) { x.tf32 = true; }, +[](cuda::MatmulArgs& x) { x.b = buf + 1040; }}) {
    cuda::MatmulArgs other = a;
    change(other);
    EXPECT_FALSE(cuda::KeyOf(other) == cuda::KeyOf(a));
    EXPECT_TRUE(cuda::KeyOf(other) < cuda::KeyOf(a) || cuda::KeyOf(a) < cuda::KeyOf(other));
  }
  // FP8: B's type is part of it (E4M3 x E5M2 is another kernel).
  cuda::MatmulArgs f8 = a;
  f8.dtype = DType::kFp8E4m3;
  f8.fp8.b = DType::kFp8E4m3;
  cuda::MatmulArgs f8b = f8;
  f8b.fp8.b = DType::kFp8E5m2;
  EXPECT_FALSE(cuda::KeyOf(f8) == cuda::KeyOf(f8b));
}

// A training step's attention steps launch StandInFor's GEMMs: the matmuls
// of a run less those of the same plan with its compute steps emptied.
TEST(CudaComputeStandIn, ComputeStepsLaunchTheStandInsGemms) {
  auto lw = MakeLayerWorkload(testing::CudaTinyModel(), 16, 1, Phase::kTrain, 2, DType::kBf16);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kBulk;
  auto plan = BuildLayerPlan(*lw, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  Plan empty = *plan;
  int64_t expected = 0;
  for (RankPlan& rp : empty.ranks) {
    for (Step& s : rp.steps) {
      if (s.kind != StepKind::kCompute) continue;
      ASSERT_GT(s.flops, 0);
      expected += StandInFor(s.flops).count;
      s.flops = 0;
    }
  }
  ASSERT_GT(expected, 0);
  RunOptions run;
  run.warmup = 1;
  run.iters = 2;
  cuda::FakeGpuStats with, without;
  ASSERT_TRUE(testing::RunOnFake(*plan, run, {}, {}, &with).ok());
  ASSERT_TRUE(testing::RunOnFake(empty, run, {}, {}, &without).ok());
  // Every iteration, and PrimeKernels' pass over the steps before them.
  EXPECT_EQ(with.matmuls - without.matmuls, expected * (run.warmup + run.iters + 1));
}

}  // namespace
}  // namespace braid
