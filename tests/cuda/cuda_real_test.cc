// The real forwarders as linked into braid: without a GPU the backend says
// so (Unavailable, exit 1); with one, a loopback ring verifies on it. Only
// the first can run on this project's machines: nothing here has run on a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "cuda_test_util.h"

namespace braid {
namespace {

using ::testing::HasSubstr;

TEST(CudaReal, WithoutAGpuTheBackendIsUnavailable) {
  auto backend = MakeCudaBackend({});
  if (backend.ok()) GTEST_SKIP() << "a GPU is present; CudaReal.LoopbackRingVerifiesOnTheGpu checks it";
  EXPECT_EQ(backend.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(backend.status().message(), HasSubstr("cuda backend"));
  EXPECT_THAT(backend.status().message(), HasSubstr("CUDA device"));
}

TEST(CudaReal, LoopbackRingVerifiesOnTheGpu) {
  CudaBackendOptions loop;
  loop.loopback = true;
  auto backend = MakeCudaBackend(loop);
  if (!backend.ok()) GTEST_SKIP() << "no GPU: " << backend.status().message();
  const Plan plan = testing::CudaPlan(Op::kGemmRs, 1024, 512, 1024, 4, Algorithm::kRing, 2, 2);
  auto out = (*backend)->Run(plan, testing::CudaVerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
}

// The fused kernel on one GPU: both ops verify, and a flag never raised ends
// in the kernel's timeout record instead of a hang. Never run here (no GPU).
TEST(CudaReal, LoopbackFusedKernelVerifiesAndTimesOutOnAMissingFlag) {
  CudaBackendOptions loop;
  loop.loopback = true;
  loop.timeout_s = 4;
  auto backend = MakeCudaBackend(loop);
  if (!backend.ok()) GTEST_SKIP() << "no GPU: " << backend.status().message();
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const Plan plan = testing::CudaPlan(op, 1000, 520, 264, 4, Algorithm::kFused);
    auto out = (*backend)->Run(plan, testing::CudaVerifyOnce());
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
  }
  loop.fused_never_set_rank = 1;
  loop.fused_never_set_flag = 0;
  auto stuck = MakeCudaBackend(loop);
  ASSERT_TRUE(stuck.ok());
  auto out =
      (*stuck)->Run(testing::CudaPlan(Op::kAgGemm, 512, 256, 256, 2, Algorithm::kFused), testing::CudaVerifyOnce());
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("kernel timed out on rank 1"));
}

// The fused plans on the GEMM core (--fused-engine core), both ops, P 2 and 4.
// Its timeout path traps, which loses this process's context: tests/gpu/
// run.sh checks it in a process of its own (section core).
// The GPU's backend running the fused plans on the GEMM core in loopback.
Result<std::unique_ptr<Backend>> CoreLoopbackBackend() {
  CudaBackendOptions loop = testing::CoreEngine(true);
  loop.timeout_s = 10;
  return MakeCudaBackend(loop);
}

TEST(CudaReal, LoopbackFusedPlansOnTheGemmCoreVerify) {
  auto backend = CoreLoopbackBackend();
  if (!backend.ok()) GTEST_SKIP() << "no GPU: " << backend.status().message();
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (int p : {2, 4}) {
      const Plan plan = testing::CudaPlan(op, 256 * p, 136 * p, 264, p, Algorithm::kFused);
      auto out = (*backend)->Run(plan, testing::CudaVerifyOnce());
      ASSERT_TRUE(out.ok()) << OpName(op) << " P " << p << ": " << out.status().message();
      EXPECT_TRUE(out->verify.ok) << OpName(op) << " P " << p << ": " << out->verify.max_rel_error;
    }
  }
}

// The same in FP8 E4M3 on the core's sm_90a path (K and K/P multiples of 16
// bytes); another GPU refuses it in one line, which skips.
TEST(CudaReal, LoopbackFusedFp8PlansOnTheGemmCoreVerify) {
  auto backend = CoreLoopbackBackend();
  if (!backend.ok()) GTEST_SKIP() << "no GPU: " << backend.status().message();
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (int p : {2, 4}) {
      const Plan plan = testing::CudaPlan(op, 256 * p, 136 * p, 320, p, Algorithm::kFused, 1, 1, DType::kFp8E4m3);
      auto out = (*backend)->Run(plan, testing::CudaVerifyOnce());
      const std::string why = out.ok() ? std::string() : out.status().message();
      if (!out.ok() && (why.find("FP8 path is sm_90a") != std::string::npos ||
                        why.find("needs FP8 tensor cores") != std::string::npos)) {
        GTEST_SKIP() << why;
      }
      ASSERT_TRUE(out.ok()) << OpName(op) << " P " << p << ": " << out.status().message();
      EXPECT_TRUE(out->verify.ok) << OpName(op) << " P " << p << ": " << out->verify.max_rel_error;
    }
  }
}

}  // namespace
}  // namespace braid
