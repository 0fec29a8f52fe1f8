// --algo fused on the GEMM core (--fused-engine core) in FP8 E4M3 through
// the cuda backend's orchestration on the fakes. The core's FP8 path
// (sm_90a) takes A one byte an element, B stored as Bᵀ (n × k, as the
// backend's FP8 cuBLASLt steps hold it) and both per-tensor scales, and
// writes bf16: ag_gemm pulls one-byte rows of A, gemm_rs scatters bf16
// partials that the owners' reduces sum in bf16. --verify checks the
// product end to end against the dequantized inputs; what the core's FP8
// path cannot take is refused before anything runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../kernels/cuda/host/dtype_convert.h"
#include "braid/fp8.h"
#include "braid/gemm_core_api.h"
#include "cuda_test_util.h"

namespace braid {
namespace cuda_fused_core_fp8_test {
namespace {

using cuda::CoreGemmLaunch;
using cuda::CudaApi;
using cuda::DevPtr;
using cuda::GemmCoreApi;
using cuda::GpuStream;
using testing::CoreEngine;
using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;
using testing::RunOnFake;

struct Variant {
  Op op;
  CommEngine engine;  // ag_gemm: pulls by SMs (the pull kernel) or copy engines
};
constexpr Variant kVariants[] = {
    {Op::kAgGemm, CommEngine::kSm}, {Op::kAgGemm, CommEngine::kCopyEngine}, {Op::kGemmRs, CommEngine::kSm}};

// ag_gemm: M/P = 24 rows (blocks end inside the core's 128-row tiles), N/P
// = 48 and K = 64 (so Bᵀ read as B gives other numbers); gemm_rs: M/P = 128
// (a tile must not straddle two owners), K/P = 32, N = 48.
Plan Fp8Plan(const Variant& v, int p) {
  const int64_t m = v.op == Op::kAgGemm ? 24 * p : 128 * p;
  const int64_t n = v.op == Op::kAgGemm ? 48 * p : 48;
  const int64_t k = v.op == Op::kAgGemm ? 64 : 32 * p;
  return CudaPlan(v.op, m, n, k, p, Algorithm::kFused, 1, 1, DType::kFp8E4m3, v.engine);
}

std::string Where(const Variant& v, int p, bool loopback) {
  return std::string(OpName(v.op)) + " " + std::string(CommEngineName(v.engine)) + " P " + std::to_string(p) +
         " loopback " + std::to_string(loopback);
}

TEST(CudaFusedCoreFp8, AgGemmAndGemmRsVerifyAtEveryRankCount) {
  for (const Variant& v : kVariants) {
    for (int p : {2, 4, 8}) {
      for (bool loopback : {true, false}) {
        cuda::FakeGpuStats stats;
        auto out = testing::RunOnCore(Fp8Plan(v, p), loopback, uint64_t(p) * 5 + (loopback ? 1 : 0), &stats);
        const std::string where = Where(v, p, loopback);
        ASSERT_TRUE(out.ok()) << where << ": " << out.status().message();
        EXPECT_TRUE(out->verify.ran) << where;
        EXPECT_TRUE(out->verify.ok) << where << ": " << out->verify.max_rel_error;
        // One plain launch per rank loads the kernel, then one per iteration; no cuBLASLt call.
        EXPECT_EQ(stats.core_launches, int64_t(p) * (1 + 3)) << where;
        EXPECT_EQ(stats.matmuls, 0) << where;
        EXPECT_EQ(stats.fused_launches, 0) << where;
        EXPECT_EQ(stats.live_allocations, 0) << where;
        if (v.op == Op::kGemmRs) {
          EXPECT_EQ(stats.adds, 0) << where << ": the reduce sums the bf16 partials";
        }
      }
    }
  }
}

TEST(CudaFusedCoreFp8, FixedScalesAreAppliedBeforeTheOutputIsStoredOrScattered) {
  // Scales far from 1 (a dequantization factor of 1/64 for A, 1/4 for B):
  // a launch without them, or with Bᵀ read as B, misses the reference by
  // orders of magnitude, where FP8's rounding stays within bf16's.
  for (const Variant& v : kVariants) {
    for (int p : {2, 4}) {
      RunOptions run = CudaVerifyOnce();
      run.fp8_scale_a = 64;
      run.fp8_scale_b = 4;
      auto out = RunOnFake(Fp8Plan(v, p), run, CoreEngine(true));
      const std::string where = Where(v, p, true);
      ASSERT_TRUE(out.ok()) << where << ": " << out.status().message();
      EXPECT_TRUE(out->verify.ok) << where << ": " << out->verify.max_rel_error;
      EXPECT_LT(out->verify.max_rel_error, 0.02) << where;
    }
  }
}

TEST(CudaFusedCoreFp8, SchedulesThatRunThePullsOrTheReduceLateStillVerify) {
  for (const Variant& v : kVariants) {
    for (uint64_t seed : {1, 2, 3, 99}) {
      cuda::FakeGpuConfig config;
      config.schedule_seed = seed;
      auto out = RunOnFake(Fp8Plan(v, 4), CudaVerifyOnce(), CoreEngine(true), config);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_TRUE(out->verify.ok) << Where(v, 4, true) << " seed " << seed;
    }
  }
}

TEST(CudaFusedCoreFp8, WhatTheCoresFp8PathCannotTakeIsRefusedBeforeAnythingRuns) {
  auto refused = [](const Plan& plan, cuda::FakeGpuConfig config = {}, CudaBackendOptions options = CoreEngine(true)) {
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(plan, CudaVerifyOnce(), options, config, &stats);
    EXPECT_EQ(stats.ops, 0) << "refused after work was issued";
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().message();
    EXPECT_EQ(out.status().message().find('\n'), std::string::npos);
    return out.status().message();
  };
  const Plan fine = Fp8Plan(kVariants[0], 2);
  // An sm_89 GPU has FP8 tensor cores, but the core runs its sm_80 kernel there.
  cuda::FakeGpuConfig ada;
  ada.name = "NVIDIA L40S";
  ada.cc_major = 8;
  ada.cc_minor = 9;
  EXPECT_THAT(refused(fine, ada),
              HasSubstr("--fused-engine core: GEMM dtype fp8_e4m3 on sm_80: the GEMM core's FP8 path is sm_90a's "
                        "wgmma (e4m3)"));
  // E5M2 (OverlapConfig::Validate refuses it too; a hand-built plan must not reach the core).
  Plan e5m2 = fine;
  e5m2.workload.dtype = DType::kFp8E5m2;
  EXPECT_THAT(refused(e5m2), HasSubstr("--fused-engine core: GEMM dtype fp8_e5m2"));
  // K = 40: 16-byte rows in bf16, not in FP8.
  const Plan k40 = CudaPlan(Op::kAgGemm, 48, 96, 40, 2, Algorithm::kFused, 1, 1, DType::kFp8E4m3);
  EXPECT_THAT(refused(k40), HasSubstr("--fused-engine core: GEMM k = 40 is not a multiple of 16"));
  // The tasks engine's kernel has no FP8 tiles.
  EXPECT_THAT(refused(fine, {}, CudaBackendOptions{}), HasSubstr("the fused kernel does not run fp8_e4m3"));
  // fp32 stays refused.
  const Plan fp32 = CudaPlan(Op::kGemmRs, 256, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kFp32);
  EXPECT_THAT(refused(fp32), HasSubstr("take bf16, fp16 or fp8_e4m3 (sm_90a) operands, not fp32"));
}

TEST(CudaFusedCoreFp8, LayerPlansVerifyWithEveryFusedOpInFp8) {
  // A prefill layer's fused ag_gemm and gemm_rs steps in E4M3 (each op's own
  // scales), chained through their outputs, under a few schedules.
  auto lw = MakeLayerWorkload(testing::TinyLayerModel(), 256, 1, Phase::kPrefill, 2, DType::kFp8E4m3, true);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kFused;
  auto plan = BuildLayerPlan(*lw, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  testing::ExpectCoreLayerVerifies(*plan, {1, 2, 3});
}

TEST(CudaFusedCoreFp8, ACommDtypeTheCoreDoesNotMoveIsRefused) {
  // ag_gemm's pulls move A's own FP8 bytes: a plan that says bf16 would
  // price and report bytes the run does not move.
  OverlapConfig cfg = testing::OverlapConfigOf(Algorithm::kFused, 1, 1);
  cfg.comm_dtype = DType::kBf16;
  auto plan = BuildPlan({Op::kAgGemm, 48, 96, 64, DType::kFp8E4m3, 2}, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  cuda::FakeGpuStats stats;
  auto out = RunOnFake(*plan, CudaVerifyOnce(), CoreEngine(true), {}, &stats);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              HasSubstr("--fused-engine core: the GEMM core's ag_gemm pulls A in fp8_e4m3, not `comm_dtype` bf16"));
  EXPECT_EQ(stats.ops, 0);
}

// The fake core alone: an FP8 launch's operands as the kernel takes them.
class CudaFusedCoreFp8Fake : public ::testing::Test {
 protected:
  static constexpr int64_t kM = 128, kN = 16, kK = 32;

  void SetUp() override {
    cuda_ = gpu_.cuda();
    core_ = gpu_.core();
    ASSERT_TRUE(cuda_->SetDevice(0).ok());
    auto s = cuda_->CreateStream(0);
    ASSERT_TRUE(s.ok());
    stream_ = *s;
    // a[i][k] = 1 where k == i % K; bᵀ[j][k] = j + 1 where k == j (else 0): a·b[i][j] = (j + 1)·(i % K == j).
    std::vector<uint8_t> a(size_t(kM * kK), 0), bt(size_t(kN * kK), 0);
    for (int64_t i = 0; i < kM; ++i) a[size_t(i * kK + i % kK)] = FloatToFp8(Fp8Format::kE4m3, 1.0f);
    for (int64_t j = 0; j < kN; ++j) bt[size_t(j * kK + j)] = FloatToFp8(Fp8Format::kE4m3, float(j + 1));
    a_ = Upload(a.data(), a.size());
    b_ = Upload(bt.data(), bt.size());
    c_ = Upload(std::vector<uint16_t>(size_t(kM * kN), 0).data(), size_t(kM * kN) * 2);
    const float sa = 0.5f, sb = 4.0f;
    scale_a_ = Upload(&sa, sizeof sa);
    scale_b_ = Upload(&sb, sizeof sb);
  }

  DevPtr Upload(const void* data, size_t bytes) {
    auto p = cuda_->Malloc(bytes);
    EXPECT_TRUE(p.ok());
    EXPECT_TRUE(cuda_->Upload(*p, data, bytes).ok());
    return *p;
  }

  CoreGemmLaunch Launch() const {
    CoreGemmLaunch l;
    l.problem.m = kM;
    l.problem.n = kN;
    l.problem.k = kK;
    l.problem.dtype = DType::kFp8E4m3;
    l.device.arch = cuda::gemm::GemmArch::kSm90a;
    l.device.num_sms = 4;
    l.device.smem_optin = 227 * 1024;
    l.a = a_;
    l.b = b_;
    l.c = c_;
    l.scales.a = static_cast<const float*>(scale_a_);
    l.scales.b = static_cast<const float*>(scale_b_);
    return l;
  }

  Status Drain() {
    for (int i = 0; i < 1000; ++i) {
      auto done = cuda_->Query(stream_);
      if (!done.ok()) return done.status();
      if (*done) return Status::Ok();
    }
    return Status::Internal("the stream never drained");
  }

  cuda::FakeGpu gpu_;
  std::shared_ptr<CudaApi> cuda_;
  std::shared_ptr<GemmCoreApi> core_;
  GpuStream stream_ = nullptr;
  DevPtr a_ = nullptr, b_ = nullptr, c_ = nullptr, scale_a_ = nullptr, scale_b_ = nullptr;
};

TEST_F(CudaFusedCoreFp8Fake, ReadsBTransposedAndAppliesBothScalesBeforeTheBf16Store) {
  ASSERT_TRUE(core_->Launch(Launch(), stream_).ok());
  ASSERT_TRUE(Drain().ok());
  std::vector<uint16_t> c(size_t(kM * kN));
  ASSERT_TRUE(cuda_->Download(c.data(), c_, c.size() * 2).ok());
  for (int64_t i = 0; i < kM; ++i) {
    for (int64_t j = 0; j < kN; ++j) {
      const float want = i % kK == j ? 0.5f * 4.0f * float(j + 1) : 0.0f;
      ASSERT_EQ(cuda::Bf16ToFloat(c[size_t(i * kN + j)]), want) << "c[" << i << "][" << j << "]";
    }
  }
}

TEST_F(CudaFusedCoreFp8Fake, ALaunchWithoutBothScalesIsAnError) {
  CoreGemmLaunch l = Launch();
  l.scales.b = nullptr;
  const Status st = core_->Launch(l, stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("an FP8 launch without both per-tensor scales"));
}

TEST_F(CudaFusedCoreFp8Fake, AIsCheckedAsOneByteRowsAgainstLiveMemory) {
  // A holds m × k one-byte elements: an FP8 launch fits it (the first
  // test), the same launch read as bf16 runs past its end.
  CoreGemmLaunch bf16 = Launch();
  bf16.problem.dtype = DType::kBf16;
  const Status st = core_->Launch(bf16, stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("GEMM core"));
}

TEST_F(CudaFusedCoreFp8Fake, AScaleFreedBeforeTheLaunchIsAnError) {
  ASSERT_TRUE(cuda_->Free(scale_a_).ok());
  const Status st = core_->Launch(Launch(), stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("A scale"));
}

}  // namespace
}  // namespace cuda_fused_core_fp8_test
}  // namespace braid
