// --algo fused through the cuda backend's orchestration on the fakes: the
// fake executes the uploaded schedule tables with the kernel's flag rules, so
// --verify checks the numbers end to end; a flag that is never raised ends in
// the kernel's timeout record, reported as one line naming rank and tile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/layer_workload.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;
using testing::RunOnFake;

TEST(CudaFused, SeveralIterationsAndScheduleSeedsKeepTheResult) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (uint64_t seed : {1, 7, 99}) {
      const Plan plan = CudaPlan(op, 200, 96, 72, 4, Algorithm::kFused, 1, 1, DType::kFp16);
      RunOptions run = CudaVerifyOnce();
      run.warmup = 1;
      run.iters = 2;
      cuda::FakeGpuConfig config;
      config.schedule_seed = seed;
      config.sm_count = 12;  // 3 CTAs per rank in loopback: tasks queue up on few CTAs
      CudaBackendOptions options;
      options.loopback = true;
      cuda::FakeGpuStats stats;
      auto out = RunOnFake(plan, run, options, config, &stats);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
      EXPECT_EQ(stats.fused_launches, 4 * 3);
      EXPECT_EQ(stats.fused_timeouts, 0);
      EXPECT_EQ(stats.live_allocations, 0);
    }
  }
}

TEST(CudaFused, AFlagNeverRaisedEndsInTheKernelsTimeoutNamingRankAndTile) {
  {
    // ag_gemm: rank 1's pull of rank 0's first rows never raises its flag;
    // rank 1's compute CTA waiting for them times out.
    const Plan plan = CudaPlan(Op::kAgGemm, 256, 64, 64, 2, Algorithm::kFused);
    CudaBackendOptions options;
    options.fused_never_set_rank = 1;
    options.fused_never_set_flag = 0;
    options.timeout_s = 4;
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(plan, CudaVerifyOnce(), options, {}, &stats);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInternal);
    EXPECT_THAT(out.status().message(),
                HasSubstr("rank 1 step 0 'fused', iteration 0: the fused ag_gemm kernel timed out on rank 1 at tile "
                          "(row 0, col 0)"));
    EXPECT_THAT(out.status().message(), HasSubstr("flag 0 of rank 1 was not raised within 2 s"));
    EXPECT_EQ(stats.fused_timeouts, 1);
  }
  {
    // gemm_rs: rank 1's first partial tile of rank 0's block is never flagged;
    // rank 0's reduce of that tile times out.
    const Plan plan = CudaPlan(Op::kGemmRs, 128, 64, 64, 4, Algorithm::kFused);
    CudaBackendOptions options;
    options.fused_never_set_rank = 1;
    options.fused_never_set_flag = 0;
    auto out = RunOnFake(plan, CudaVerifyOnce(), options);
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(),
                HasSubstr("the fused gemm_rs kernel timed out on rank 0 at tile (row 0, col 0)"));
    EXPECT_THAT(out.status().message(), HasSubstr("flag 0 of rank 1"));
  }
}

TEST(CudaFused, BudgetsAndDtypesTheKernelCannotRunAreInvalid) {
  auto status = [](const Plan& plan, bool loopback, int sm_count, int never_rank = -1) {
    CudaBackendOptions options;
    options.loopback = loopback;
    options.fused_never_set_rank = never_rank;
    options.fused_never_set_flag = never_rank >= 0 ? 0 : -1;
    cuda::FakeGpuConfig config;
    config.sm_count = sm_count;
    return RunOnFake(plan, CudaVerifyOnce(), options, config).status();
  };
  const Plan leaves_none =
      CudaPlan(Op::kAgGemm, 64, 64, 64, 8, Algorithm::kFused, 1, 1, DType::kBf16, CommEngine::kSm, 16);
  Status st = status(leaves_none, true, 132);  // loopback: 132 / 8 = 16 SMs per rank
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("`comm_sms` 16 leaves no SM for the fused GEMM (16 SMs per rank)"));
  EXPECT_TRUE(status(leaves_none, false, 132).ok());  // a GPU per rank: 116 compute CTAs

  const Plan too_many =
      CudaPlan(Op::kGemmRs, 64, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kBf16, CommEngine::kSm, 40);
  EXPECT_THAT(status(too_many, false, 132).message(), HasSubstr("outside the fused kernel's 1..32 comm CTAs"));
  const Plan fp32 = CudaPlan(Op::kGemmRs, 64, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kFp32);
  EXPECT_THAT(status(fp32, false, 132).message(), HasSubstr("bf16 or fp16"));
  const Plan ok = CudaPlan(Op::kGemmRs, 64, 64, 64, 2, Algorithm::kFused);
  EXPECT_THAT(status(ok, false, 132, 5).message(), HasSubstr("names rank 5 of a 2-rank run"));
}

TEST(CudaFused, TheTestHookIsReadFromItsEnvironmentValue) {
  CudaBackendOptions o;
  EXPECT_TRUE(ReadFusedTestHook(nullptr, o).ok());
  EXPECT_EQ(o.fused_never_set_rank, -1);
  ASSERT_TRUE(ReadFusedTestHook("1:3", o).ok());
  EXPECT_EQ(o.fused_never_set_rank, 1);
  EXPECT_EQ(o.fused_never_set_flag, 3);
  for (const char* bad : {"1", "x:2", "1:2x", "-1:0"}) {
    const Status st = ReadFusedTestHook(bad, o);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(st.message(), HasSubstr("BRAID_FUSED_NEVER_SET must be RANK:FLAG"));
  }
}

TEST(CudaFused, LayerPlansRunOneFusedKernelPerGemmOp) {
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kFused;
  auto plan = testing::TinyLayerPlan(16, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  cuda::FakeGpuStats stats;
  auto out = RunOnFake(*plan, CudaVerifyOnce(), {}, {}, &stats);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
  int fused_steps = 0;
  for (const Step& s : plan->ranks[0].steps) fused_steps += s.kind == StepKind::kFused;
  EXPECT_GE(fused_steps, 2);
  EXPECT_EQ(stats.fused_launches, 2 * fused_steps);
}

}  // namespace
}  // namespace braid
