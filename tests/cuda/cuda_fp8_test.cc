// FP8 through the cuda backend on the fakes: cuBLASLt FP8 matmuls (scales,
// TN layout, bf16 C), FP8 all-gathers and send/recv, bf16 reductions, and
// the refusals (shapes cuBLASLt's FP8 kernels cannot take, the fused kernel,
// FP8 partials). Nothing here has run on a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "braid/blaslt_api.h"
#include "braid/fp8.h"
#include "cuda_test_util.h"
#include "fake_processes.h"

namespace braid {
namespace {

using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;
using testing::RunOnFake;

int64_t Fp8Elements(const cuda::FakeGpuStats& s) {
  int64_t n = 0;
  for (const auto& [dtype, count] : s.nccl_elements) n += IsFp8(dtype) ? count : 0;
  return n;
}

int64_t ElementsOf(const cuda::FakeGpuStats& s, DType d) {
  const auto it = s.nccl_elements.find(d);
  return it == s.nccl_elements.end() ? 0 : it->second;
}

TEST(CudaFp8, AgGemmAndGemmRsVerifyForEveryAlgorithmAtP2And4) {
  int runs = 0;
  for (DType dtype : {DType::kFp8E4m3, DType::kFp8E5m2}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
        for (int p : {2, 4}) {
          for (bool loopback : {false, true}) {
            const int chunks = algo == Algorithm::kSerial ? 1 : 2;
            const Plan plan = CudaPlan(op, 256, 128, 128, p, algo, chunks, 2, dtype);
            SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe() + (loopback ? " loopback" : ""));
            CudaBackendOptions o;
            o.loopback = loopback;
            cuda::FakeGpuStats stats;
            auto out = RunOnFake(plan, CudaVerifyOnce(), o, {}, &stats);
            ASSERT_TRUE(out.ok()) << out.status().message();
            EXPECT_TRUE(out->verify.ran);
            EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
            EXPECT_EQ(stats.fp8_matmuls, stats.matmuls);
            EXPECT_GT(stats.fp8_matmuls, 0);
            EXPECT_EQ(out->compute_dtype, std::string(DTypeName(dtype)));
            EXPECT_EQ(stats.live_allocations, 0);
            if (!loopback) {
              // ag_gemm gathers FP8 A; gemm_rs reduces bf16 partials (Workload::CommDType).
              if (op == Op::kAgGemm) {
                EXPECT_GT(ElementsOf(stats, dtype), 0);
                EXPECT_EQ(ElementsOf(stats, DType::kBf16), 0);
              } else {
                EXPECT_EQ(Fp8Elements(stats), 0);
                EXPECT_GT(ElementsOf(stats, DType::kBf16), 0);
              }
            }
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_EQ(runs, 64);
}

TEST(CudaFp8, E5m2RunsBInE4m3AndSaysSo) {
  auto out = RunOnFake(CudaPlan(Op::kAgGemm, 64, 64, 64, 2, Algorithm::kRing, 1, 1, DType::kFp8E5m2), CudaVerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok);
  EXPECT_THAT(::testing::PrintToString(out->notes), HasSubstr("B in E4M3"));
}

TEST(CudaFp8, FixedScalesReachTheRunAndSaySo) {
  const Plan plan = CudaPlan(Op::kAgGemm, 64, 64, 64, 2, Algorithm::kRing, 1, 1, DType::kFp8E4m3);
  RunOptions fixed = CudaVerifyOnce();
  fixed.fp8_scale_a = 64;
  fixed.fp8_scale_b = 4096;  // most of B saturates at 448 / 4096: still verified, as the reference casts the same way
  auto out = RunOnFake(plan, fixed);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok);
  EXPECT_THAT(::testing::PrintToString(out->notes), HasSubstr("FP8 scales: A fixed 64, B fixed 4096"));
  auto amax = RunOnFake(plan, CudaVerifyOnce());
  ASSERT_TRUE(amax.ok()) << amax.status().message();
  EXPECT_THAT(::testing::PrintToString(amax->notes), HasSubstr("FP8 scales: A from each tensor's amax"));
  testing::ProcessRun pr = testing::RunAsFakeProcesses(plan, fixed, 2);
  ASSERT_TRUE(pr.outs[0].ok()) << pr.outs[0].status().message();
  EXPECT_THAT(::testing::PrintToString(pr.outs[0]->notes), HasSubstr("A fixed 64"));
}

TEST(CudaFp8, VerifiesAcrossProcesses) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const Plan plan = CudaPlan(op, 128, 64, 64, 2, Algorithm::kRing, 1, 1, DType::kFp8E4m3);
    testing::ProcessRun pr = testing::RunAsFakeProcesses(plan, CudaVerifyOnce(), 2);
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(pr.outs[size_t(r)].ok()) << pr.outs[size_t(r)].status().message();
      EXPECT_TRUE(pr.outs[size_t(r)]->verify.ok) << OpName(op) << " rank " << r;
    }
    EXPECT_GT(pr.stats.fp8_matmuls, 0);
  }
}

TEST(CudaFp8, AWrongGemmFailsVerification) {
  cuda::FakeGpuConfig c;
  c.corrupt_matmul_in = "rank 1 step";
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    auto out = RunOnFake(CudaPlan(op, 64, 64, 64, 2, Algorithm::kRing, 1, 1, DType::kFp8E4m3), CudaVerifyOnce(), {}, c);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ran);
    EXPECT_FALSE(out->verify.ok) << OpName(op);
  }
}

TEST(CudaFp8, ShapesCublasLtFp8CannotTakeAreRefusedBeforeAnyCall) {
  struct Case {
    Op op;
    int64_t m, n, k;
    const char* says;
  };
  // ag_gemm: n / P = 8 columns of B per rank; gemm_rs: k / P = 8; m / P / chunks = 8 rows.
  for (const Case& c : {Case{Op::kAgGemm, 64, 16, 64, "m, n and k multiples of 16"},
                        Case{Op::kGemmRs, 64, 64, 16, "m, n and k multiples of 16"},
                        Case{Op::kAgGemm, 32, 64, 64, "m, n and k multiples of 16"}}) {
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(CudaPlan(c.op, c.m, c.n, c.k, 2, Algorithm::kChunked, 2, 1, DType::kFp8E4m3), CudaVerifyOnce(),
                         {}, {}, &stats);
    ASSERT_FALSE(out.ok()) << OpName(c.op) << " " << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("fp8_e4m3 on the cuda backend: rank 0 step"));
    EXPECT_THAT(out.status().message(), HasSubstr(c.says));
    EXPECT_EQ(out.status().message().find('\n'), std::string::npos);
    EXPECT_EQ(stats.matmuls, 0);
    EXPECT_EQ(stats.streams_created, 0);
  }
}

TEST(CudaFp8, ADeviceWithoutFp8TensorCoresIsInvalid) {
  cuda::FakeGpuConfig ampere;
  ampere.name = "NVIDIA A100-SXM4-80GB";
  ampere.cc_major = 8;
  ampere.cc_minor = 0;
  auto out = RunOnFake(CudaPlan(Op::kAgGemm, 64, 64, 64, 2, Algorithm::kRing, 1, 1, DType::kFp8E4m3), CudaVerifyOnce(),
                       {}, ampere);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("fp8_e4m3 needs FP8 tensor cores (compute capability 8.9"));
}

TEST(CudaFp8, TheFusedKernelRefusesFp8AndNamesTheCore) {
  // The tasks engine's kernel (the default) has no FP8 tiles; the GEMM
  // core's sm_90a path runs fp8_e4m3 (cuda_fused_core_fp8_test.cc).
  const Plan plan = CudaPlan(Op::kAgGemm, 256, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kFp8E4m3);
  cuda::FakeGpuStats stats;
  auto out = RunOnFake(plan, CudaVerifyOnce(), {}, {}, &stats);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("the fused kernel does not run fp8_e4m3"));
  EXPECT_THAT(out.status().message(), HasSubstr("--fused-engine core"));
  EXPECT_EQ(stats.fused_launches, 0);
}

TEST(CudaFp8, TheConfigRefusesFusedE5m2ButNotE4m3) {
  // No fused engine has an E5M2 GEMM; which one runs E4M3 is the backend's to say.
  OverlapConfig cfg = testing::OverlapConfigOf(Algorithm::kFused, 1, 1);
  auto e5m2 = BuildPlan({Op::kAgGemm, 256, 64, 64, DType::kFp8E5m2, 2}, cfg);
  ASSERT_FALSE(e5m2.ok());
  EXPECT_THAT(e5m2.status().message(), HasSubstr("fused has no fp8_e5m2 kernel"));
  EXPECT_TRUE(BuildPlan({Op::kAgGemm, 256, 64, 64, DType::kFp8E4m3, 2}, cfg).ok());
}

TEST(CudaFp8, TransfersOfPartialsInFp8AreRefusedNotStubbed) {
  // A gemm_rs ring plan whose comm dtype is FP8 (--comm-dtype fp8_e4m3):
  // the partials are bf16 GEMM results, and summing FP8 partials needs a
  // kernel this backend lacks.
  Plan plan = CudaPlan(Op::kGemmRs, 64, 64, 64, 2, Algorithm::kRing, 1, 1, DType::kFp8E4m3);
  plan.config.comm_dtype = DType::kFp8E4m3;
  ASSERT_TRUE(IsFp8(plan.op_comm_dtype(0)));
  auto out = RunOnFake(plan, CudaVerifyOnce());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("the plan moves fp8_e4m3 but buffer"));
  EXPECT_THAT(out.status().message(), HasSubstr("dequantize-and-add kernel"));
}

// The fake cuBLASLt on its own: one FP8 matmul with known codes and scales.
class CudaFp8Fake : public ::testing::Test {
 protected:
  void SetUp() override {
    seams_ = gpu_.Seams();
    ASSERT_TRUE(seams_.cuda->SetDevice(0).ok());
    auto s = seams_.cuda->CreateStream(0);
    auto blas = seams_.make_blas();
    ASSERT_TRUE(s.ok() && blas.ok());
    stream_ = *s;
    blas_ = std::move(blas).value();
    a_ = Alloc(16 * 16);
    b_ = Alloc(16 * 16);
    c_ = Alloc(16 * 16 * 2);
    sa_ = Alloc(4);
    sb_ = Alloc(4);
  }
  cuda::DevPtr Alloc(size_t bytes) {
    auto p = seams_.cuda->Malloc(bytes);
    EXPECT_TRUE(p.ok());
    return p.ok() ? *p : nullptr;
  }
  cuda::MatmulArgs Args() const {
    cuda::MatmulArgs m;
    m.m = m.n = m.k = 16;
    m.lda = m.ldb = m.ldc = 16;
    m.a = a_;
    m.b = b_;
    m.c = c_;
    m.dtype = DType::kFp8E4m3;
    m.fp8.b = DType::kFp8E4m3;
    m.fp8.a_scale = sa_;
    m.fp8.b_scale = sb_;
    return m;
  }

  cuda::FakeGpu gpu_;
  CudaSeams seams_;
  cuda::GpuStream stream_ = nullptr;
  std::unique_ptr<cuda::BlasLtApi> blas_;
  cuda::DevPtr a_ = nullptr, b_ = nullptr, c_ = nullptr, sa_ = nullptr, sb_ = nullptr;
};

TEST_F(CudaFp8Fake, ComputesDequantizedProductsInFp32WithBf16Out) {
  // A[r][p] = 1.5 (code), B stored transposed: Bᵀ[c][p] = c==p ? 2 : 0.
  std::vector<uint8_t> a(256, FloatToFp8(Fp8Format::kE4m3, 1.5f)), bt(256, 0);
  for (int c = 0; c < 16; ++c) bt[size_t(c) * 16 + size_t(c)] = FloatToFp8(Fp8Format::kE4m3, float(c + 1) / 8);
  const float sa = 0.5f, sb = 4.0f;
  ASSERT_TRUE(seams_.cuda->Upload(a_, a.data(), a.size()).ok());
  ASSERT_TRUE(seams_.cuda->Upload(b_, bt.data(), bt.size()).ok());
  ASSERT_TRUE(seams_.cuda->Upload(sa_, &sa, 4).ok());
  ASSERT_TRUE(seams_.cuda->Upload(sb_, &sb, 4).ok());
  ASSERT_TRUE(blas_->Matmul(Args(), stream_).ok());
  auto done = seams_.cuda->Query(stream_);
  ASSERT_TRUE(done.ok() && *done) << done.status().message();
  std::vector<uint16_t> c(256);
  ASSERT_TRUE(seams_.cuda->Download(c.data(), c_, c.size() * 2).ok());
  for (int r = 0; r < 16; ++r) {
    for (int col = 0; col < 16; ++col) {
      // C[r][col] = Σ_p A[r][p]·B[p][col] · sa·sb = 1.5 · (col+1)/8 · 2
      const float want = 1.5f * float(col + 1) / 8 * 2;
      float got = 0;
      const uint32_t bits = uint32_t(c[size_t(r) * 16 + size_t(col)]) << 16;
      std::memcpy(&got, &bits, 4);
      EXPECT_FLOAT_EQ(got, want) << r << "," << col;
    }
  }
}

TEST_F(CudaFp8Fake, AMissingScalePointerIsCaught) {
  cuda::MatmulArgs m = Args();
  m.fp8.b_scale = nullptr;
  const Status st = blas_->Matmul(m, stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("A_SCALE_POINTER and B_SCALE_POINTER must both be set"));
  m = Args();
  m.fp8.a_scale = nullptr;
  EXPECT_FALSE(blas_->Matmul(m, stream_).ok());
}

TEST_F(CudaFp8Fake, AScalePointerOutsideDeviceMemoryIsCaught) {
  cuda::MatmulArgs m = Args();
  float host_scale = 1;
  m.fp8.a_scale = &host_scale;
  const Status st = blas_->Matmul(m, stream_);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("A_SCALE_POINTER"));
}

TEST_F(CudaFp8Fake, TypesAndLayoutsCublasLtRefusesAreCaught) {
  cuda::MatmulArgs m = Args();
  m.dtype = DType::kFp8E5m2;
  m.fp8.b = DType::kFp8E5m2;
  EXPECT_THAT(blas_->Matmul(m, stream_).message(), HasSubstr("no E5M2 x E5M2"));
  m = Args();
  m.fp8.b = DType::kBf16;
  EXPECT_THAT(blas_->Matmul(m, stream_).message(), HasSubstr("B must be FP8"));
  m = Args();
  m.m = 8;
  EXPECT_THAT(blas_->Matmul(m, stream_).message(), HasSubstr("multiples of 16"));
  m = Args();
  m.lda = 24;
  EXPECT_THAT(blas_->Matmul(m, stream_).message(), HasSubstr("multiples of 16 bytes"));
  m = Args();
  m.ldb = 8;  // B is n×k: a row is k = 16 long
  EXPECT_THAT(blas_->Matmul(m, stream_).message(), HasSubstr("invalid shape or leading dimension"));
  // Valid ones pass (the fixture's args).
  EXPECT_TRUE(blas_->Matmul(Args(), stream_).ok());
}

TEST(CudaFp8Rules, MisalignedPointersAreRefused) {
  cuda::MatmulArgs m;
  m.m = m.n = m.k = 16;
  m.lda = m.ldb = m.ldc = 16;
  alignas(16) static char mem[1024];
  m.a = mem + 8;
  m.b = mem + 256;
  m.c = mem + 512;
  m.dtype = DType::kFp8E4m3;
  m.fp8.a_scale = m.fp8.b_scale = mem;
  EXPECT_THAT(cuda::CheckFp8Matmul(m).message(), HasSubstr("16-byte aligned"));
  m.a = mem;
  EXPECT_TRUE(cuda::CheckFp8Matmul(m).ok());
  m.dtype = DType::kBf16;  // not FP8: nothing to check
  m.m = 3;
  EXPECT_TRUE(cuda::CheckFp8Matmul(m).ok());
}

}  // namespace
}  // namespace braid
