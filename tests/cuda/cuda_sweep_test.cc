// Every algorithm × op × P ∈ {2, 4, 8} × transport (NCCL, copy engine across
// GPUs, loopback on one GPU) runs through the orchestration on the fakes and
// reproduces the reference A·B within the dtype's tolerance; so does the
// fused kernel for ag_gemm and gemm_rs.
#include <gtest/gtest.h>

#include "cuda_test_util.h"

namespace braid {
namespace {

using testing::CudaPlan;
using testing::CudaVerifyOnce;
using testing::RunOnFake;

enum class Mode { kNccl, kCopyEngine, kLoopback };

const char* ModeName(Mode m) { return m == Mode::kNccl ? "nccl" : m == Mode::kCopyEngine ? "ce" : "loopback"; }

TEST(CudaSweep, EveryAlgorithmOpTpAndTransportVerifiesThroughTheFakes) {
  int verified = 0;
  const DType dtypes[] = {DType::kBf16, DType::kFp16, DType::kFp32};
  int which = 0;
  for (Mode mode : {Mode::kNccl, Mode::kCopyEngine, Mode::kLoopback}) {
    for (Algorithm algo :
         {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDirect}) {
      for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
        if (algo == Algorithm::kDirect && op == Op::kGemmAr) continue;  // refused (gemm_rs + ag_gemm)
        for (int p : {2, 4, 8}) {
          const int chunks = algo == Algorithm::kSerial ? 1 : 2;
          const int lanes = 1 + (p / 2 + int(algo)) % 2;
          const DType dtype = dtypes[which++ % 3];
          const Plan plan = CudaPlan(op, 8 * p, 4 * p, 8 * p, p, algo, chunks, lanes, dtype,
                                     mode == Mode::kCopyEngine ? CommEngine::kCopyEngine : CommEngine::kSm);
          SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe() + " " + ModeName(mode));
          CudaBackendOptions options;
          options.loopback = mode == Mode::kLoopback;
          cuda::FakeGpuStats stats;
          Result<RunOutput> out = RunOnFake(plan, CudaVerifyOnce(), options, {}, &stats);
          ASSERT_TRUE(out.ok()) << out.status().message();
          EXPECT_TRUE(out->verify.ran);
          EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error << " on rank "
                                      << out->verify.worst_rank;
          // The transport the mode asks for is the one that moved the data.
          if (mode == Mode::kNccl) {
            EXPECT_GT(stats.nccl_sends + stats.nccl_collectives, 0);
            EXPECT_EQ(stats.flag_waits, 0);
          } else {
            EXPECT_EQ(stats.nccl_sends + stats.nccl_collectives, 0);
            EXPECT_GT(stats.flag_waits, 0);
          }
          EXPECT_EQ(stats.live_allocations, 0) << "device memory leaked";
          if (!::testing::Test::HasFailure()) ++verified;
        }
      }
    }
  }
  EXPECT_EQ(verified, 108 + 18);  // direct: 3 transports × 2 ops × 3 P
}

// The fused kernel: its tables executed by the fake (FakeGpu's fused kernel)
// under the orchestration, one GPU per rank and loopback on one GPU.
TEST(CudaSweep, FusedVerifiesForEveryOpAndTpOnGpusAndInLoopback) {
  int verified = 0;
  for (bool loopback : {false, true}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (int p : {2, 4, 8}) {
        // Ragged tiles: M/P = 24 rows and 70 columns are not multiples of the 64x64 tile.
        const DType dtype = p == 4 ? DType::kFp16 : DType::kBf16;
        const Plan plan =
            CudaPlan(op, 24 * p, op == Op::kAgGemm ? 70 * p : 70, 40 * p, p, Algorithm::kFused, 1, 1, dtype);
        SCOPED_TRACE(plan.workload.Describe() + (loopback ? " loopback" : " gpus"));
        CudaBackendOptions options;
        options.loopback = loopback;
        cuda::FakeGpuStats stats;
        Result<RunOutput> out = RunOnFake(plan, CudaVerifyOnce(), options, {}, &stats);
        ASSERT_TRUE(out.ok()) << out.status().message();
        EXPECT_TRUE(out->verify.ran);
        EXPECT_TRUE(out->verify.ok) << "max_rel_error " << out->verify.max_rel_error << " on rank "
                                    << out->verify.worst_rank;
        // Everything moved inside the kernels: no NCCL call, no stream flag, no matmul.
        EXPECT_EQ(stats.fused_launches, p);
        EXPECT_GT(stats.fused_tasks, 0);
        EXPECT_EQ(stats.nccl_sends + stats.nccl_collectives + stats.flag_waits + stats.matmuls, 0);
        EXPECT_EQ(stats.live_allocations, 0) << "device memory leaked";
        if (!::testing::Test::HasFailure()) ++verified;
      }
    }
  }
  EXPECT_EQ(verified, 12);
}

}  // namespace
}  // namespace braid
