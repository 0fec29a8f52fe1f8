// The GEMM core's host planning (kernels/cuda/gemm/gemm_plan.h,
// tile_config.h, tma_params.h): the per-architecture tile configs and their
// shared-memory budget, the TMA maps' parameters and the driver's rules on
// them, and the refusals of shapes the kernels cannot tile, each naming its
// constraint.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "gemm/gemm_plan.h"

namespace braid::cuda::gemm {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kH100Optin = 232448;  // cudaDevAttrMaxSharedMemoryPerBlockOptin on H100 / H200
constexpr int64_t kA100Optin = 166912;

GemmDevice Hopper() { return GemmDevice{GemmArch::kSm90a, 132, kH100Optin}; }
GemmDevice Ampere() { return GemmDevice{GemmArch::kSm80, 108, kA100Optin}; }

GemmProblem Problem(int64_t m, int64_t n, int64_t k, DType dtype = DType::kBf16) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.dtype = dtype;
  return p;
}

TEST(GemmTileConfig, PerArchitecture) {
  const TileConfig h = TileConfigFor(GemmArch::kSm90a);
  EXPECT_EQ(h.tile_m, 128);
  EXPECT_EQ(h.tile_n, 128);
  EXPECT_EQ(h.tile_k, 64);
  EXPECT_GE(h.stages, 4);
  EXPECT_LE(h.stages, 5);
  EXPECT_EQ(h.producer_warpgroups, 1);
  EXPECT_EQ(h.consumer_warpgroups, 2);
  EXPECT_EQ(h.threads, 384);
  const TileConfig a = TileConfigFor(GemmArch::kSm80);
  EXPECT_EQ(a.tile_m, 128);
  EXPECT_EQ(a.tile_n, 128);
  EXPECT_EQ(a.tile_k, 32);
  EXPECT_GE(a.stages, 3);
  EXPECT_LE(a.stages, 4);
  EXPECT_EQ(a.threads, 256);
}

TEST(GemmTileConfig, ArchitectureFromComputeCapability) {
  EXPECT_EQ(ArchForCapability(9, 0).value(), GemmArch::kSm90a);
  EXPECT_EQ(ArchForCapability(8, 0).value(), GemmArch::kSm80);
  EXPECT_EQ(ArchForCapability(8, 9).value(), GemmArch::kSm80);
  const auto old = ArchForCapability(7, 5);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(old.status().message(), HasSubstr("7.5"));
  EXPECT_FALSE(ArchForCapability(10, 0).ok());
}

TEST(GemmSmemBudget, RingBarriersAndAlignmentSlack) {
  // sm_90a: 5 × (16 KiB A + 16 KiB B) + 10 mbarriers + 1 KiB alignment slack.
  EXPECT_EQ(SmemBytes(TileConfigFor(GemmArch::kSm90a)), 5 * 32768 + 80 + 1024);
  // sm_80: 4 × (8 KiB + 8 KiB) + 1 KiB.
  EXPECT_EQ(SmemBytes(TileConfigFor(GemmArch::kSm80)), 4 * 16384 + 1024);
  EXPECT_TRUE(CheckSmemBudget(TileConfigFor(GemmArch::kSm90a), kH100Optin).ok());
  EXPECT_TRUE(CheckSmemBudget(TileConfigFor(GemmArch::kSm80), kA100Optin).ok());
  // An sm_86 part allows 99 KiB: the sm_80 ring still fits.
  EXPECT_TRUE(CheckSmemBudget(TileConfigFor(GemmArch::kSm80), 101376).ok());
}

TEST(GemmSmemBudget, RefusesARingTooBigForTheDevice) {
  // The Hopper ring on an sm_86-sized budget (99 KiB per block).
  const Status s = CheckSmemBudget(TileConfigFor(GemmArch::kSm90a), 101376);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sm_90a GEMM tile 128x128x64 with 5 stages needs 164944 bytes"));
  EXPECT_THAT(s.message(), HasSubstr("allows 101376"));
  EXPECT_TRUE(CheckSmemBudget(TileConfigFor(GemmArch::kSm90a), 164944).ok());
  EXPECT_FALSE(CheckSmemBudget(TileConfigFor(GemmArch::kSm90a), 164943).ok());
}

TEST(GemmTmaParams, AandBMapsForTheHopperTile) {
  const TileConfig c = TileConfigFor(GemmArch::kSm90a);
  const TmaTensorMapParams a = TmaParamsA(8192, 1024, 1024, c);
  EXPECT_EQ(a.dims[0], 1024u);  // K contiguous
  EXPECT_EQ(a.dims[1], 8192u);
  EXPECT_EQ(a.stride_bytes[0], 2048u);
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.swizzle, TmaSwizzle::k128B);
  EXPECT_EQ(BoxBytes(a), 16384u);
  EXPECT_TRUE(CheckTmaParams(a).ok());
  const TmaTensorMapParams b = TmaParamsB(1024, 8192, 8192, c);
  EXPECT_EQ(b.dims[0], 8192u);  // N contiguous
  EXPECT_EQ(b.dims[1], 1024u);
  EXPECT_EQ(b.box[0], 64u);
  EXPECT_EQ(b.box[1], 64u);
  EXPECT_EQ(BoxBytes(b) * (c.tile_n / kTmaBoxBCols), 16384u);
  EXPECT_TRUE(CheckTmaParams(b).ok());
}

// One broken rule per case, each named in the message.
TEST(GemmTmaParams, RefusesWhatTheDriverWould) {
  const TmaTensorMapParams good = TmaParamsA(256, 256, 256, TileConfigFor(GemmArch::kSm90a));
  auto refused = [&](auto edit, const char* words) {
    TmaTensorMapParams p = good;
    edit(p);
    const Status s = CheckTmaParams(p);
    ASSERT_FALSE(s.ok()) << words;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(words));
    EXPECT_THAT(s.message(), HasSubstr("TMA tensor map of A"));
  };
  refused([](TmaTensorMapParams& p) { p.stride_bytes[0] = 520; }, "not a multiple of 16");
  refused([](TmaTensorMapParams& p) { p.stride_bytes[0] = uint64_t(1) << 40; }, "not below 2^40");
  refused([](TmaTensorMapParams& p) { p.stride_bytes[0] = 256; }, "shorter than a row");
  refused([](TmaTensorMapParams& p) { p.box[1] = 257; }, "box[1] = 257 is outside 1..256");
  refused([](TmaTensorMapParams& p) { p.box[0] = 0; }, "box[0] = 0 is outside 1..256");
  refused([](TmaTensorMapParams& p) { p.box[0] = 4; }, "box row of 8 bytes is not a multiple of 16");
  refused([](TmaTensorMapParams& p) { p.box[0] = 128; }, "exceeds the 128-byte swizzle span");
  refused([](TmaTensorMapParams& p) { p.dims[1] = 0; }, "dims[1] = 0 is outside 1..2^32");
  refused([](TmaTensorMapParams& p) { p.dims[0] = (uint64_t(1) << 32) + 1; }, "outside 1..2^32");
  refused([](TmaTensorMapParams& p) { p.elem_strides[0] = 9; }, "element stride 9");
  refused([](TmaTensorMapParams& p) { p.rank = 3; }, "rank 3");
  EXPECT_TRUE(CheckTmaAddress("A", 0x7f0000001000).ok());
  EXPECT_THAT(CheckTmaAddress("B", 0x7f0000001008).message(), HasSubstr("16-byte aligned"));
}

TEST(GemmPlan, PlansTheLlamaShapesOnBothArchitectures) {
  for (const GemmDevice& d : {Hopper(), Ampere()})
    for (const GemmProblem& p : {Problem(8192, 8192, 8192), Problem(8192, 1280, 8192), Problem(8192, 8192, 1024),
                                 Problem(8192, 7168, 8192), Problem(8192, 8192, 3584, DType::kFp16)}) {
      const auto plan = PlanGemm(p, d);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      EXPECT_EQ(plan->problem.lda, p.k);
      EXPECT_EQ(plan->problem.ldb, p.n);
      EXPECT_EQ(plan->problem.ldc, p.n);
      EXPECT_EQ(plan->grid, d.num_sms);  // every shape has more tiles than SMs
      EXPECT_EQ(plan->threads, plan->config.threads);
      EXPECT_EQ(plan->smem_bytes, SmemBytes(plan->config));
      EXPECT_LE(plan->smem_bytes, d.smem_optin);
      if (d.arch == GemmArch::kSm90a) {
        EXPECT_EQ(plan->tma_a.dims[0], uint64_t(p.k));
      }
    }
}

TEST(GemmPlan, RaggedShapesAreTiledNotRefused) {
  const auto plan = PlanGemm(Problem(1000, 136, 72), Hopper());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->scheduler.total(), 8 * 2);
  EXPECT_EQ(plan->grid, 16);  // fewer tiles than SMs: one CTA per tile
  EXPECT_TRUE(PlanGemm(Problem(1, 8, 8), Ampere()).ok());
}

void ExpectRefused(const GemmProblem& p, const GemmDevice& d, const char* words) {
  const auto plan = PlanGemm(p, d);
  ASSERT_FALSE(plan.ok()) << words;
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), HasSubstr(words));
}

TEST(GemmPlan, RefusesShapesItCannotTileNamingTheConstraint) {
  ExpectRefused(Problem(128, 128, 100), Hopper(), "GEMM k = 100 is not a multiple of 8 elements");
  ExpectRefused(Problem(128, 100, 128), Ampere(), "GEMM n = 100 is not a multiple of 8 elements");
  ExpectRefused(Problem(0, 128, 128), Hopper(), "GEMM m = 0 is outside 1..2^31-1");
  ExpectRefused(Problem(int64_t(1) << 31, 128, 128), Hopper(), "32-bit");
  ExpectRefused(Problem(128, 128, 128, DType::kFp32), Hopper(), "dtype fp32");
  ExpectRefused(Problem(128, 128, 128, DType::kFp8E5m2), Hopper(), "dtype fp8_e5m2");  // E4M3 only (below)
  GemmProblem lda = Problem(128, 128, 128);
  lda.lda = 132;
  ExpectRefused(lda, Hopper(), "GEMM lda = 132 is not a multiple of 8 elements");
  GemmProblem short_ldb = Problem(128, 128, 128);
  short_ldb.ldb = 64;
  ExpectRefused(short_ldb, Ampere(), "GEMM ldb = 64 is shorter than a row (n = 128)");
  GemmDevice small = Hopper();
  small.smem_optin = 101376;
  ExpectRefused(Problem(128, 128, 128), small, "needs 164944 bytes of shared memory");
  GemmDevice none = Hopper();
  none.num_sms = 0;
  EXPECT_EQ(PlanGemm(Problem(128, 128, 128), none).status().code(), StatusCode::kUnavailable);
}

// FP8 E4M3 on sm_90a, as the backend's FP8 cuBLASLt call lays it out: a
// (m × k) and bᵀ (n × k) K-major in one-byte elements, c bf16; the same
// ring bytes as bf16 (K steps of 128 elements fill the 128-byte rows).
TEST(GemmPlan, Fp8E4m3OnHopperTakesBTransposedInTheSameRing) {
  auto plan = PlanGemm(Problem(8192, 1280, 8192, DType::kFp8E4m3), Hopper());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->config.tile_k, 128);
  EXPECT_EQ(plan->config.elem_bytes, 1);
  EXPECT_EQ(plan->smem_bytes, SmemBytes(TileConfigFor(GemmArch::kSm90a)));
  EXPECT_EQ(plan->problem.lda, 8192);
  EXPECT_EQ(plan->problem.ldb, 8192) << "bᵀ: n rows of k";
  EXPECT_EQ(plan->problem.ldc, 1280);
  const TmaTensorMapParams& a = plan->tma_a;
  EXPECT_EQ(a.elem_bytes, 1);
  EXPECT_EQ(a.dims[0], 8192u);
  EXPECT_EQ(a.dims[1], 8192u);
  EXPECT_EQ(a.stride_bytes[0], 8192u);
  EXPECT_EQ(a.box[0], 128u);
  EXPECT_EQ(a.box[1], 128u);
  const TmaTensorMapParams& b = plan->tma_b;
  EXPECT_EQ(b.elem_bytes, 1);
  EXPECT_EQ(b.dims[0], 8192u) << "K contiguous";
  EXPECT_EQ(b.dims[1], 1280u);
  EXPECT_EQ(b.stride_bytes[0], 8192u);
  EXPECT_EQ(b.box[0], 128u);
  EXPECT_EQ(b.box[1], 128u);
  // One stage: A's box and B's box, 16 KiB each, what expect_tx counts.
  EXPECT_EQ(BoxBytes(a) + BoxBytes(b), 32768u);
  // A ragged K of 16-byte rows is tiled, not refused.
  EXPECT_TRUE(PlanGemm(Problem(100, 40, 48, DType::kFp8E4m3), Hopper()).ok());
}

TEST(GemmPlan, Fp8RefusalsNameTheirConstraint) {
  auto refused = [](GemmProblem p, GemmDevice d) {
    auto plan = PlanGemm(p, d);
    EXPECT_FALSE(plan.ok());
    return plan.ok() ? std::string() : plan.status().message();
  };
  EXPECT_THAT(refused(Problem(256, 256, 256, DType::kFp8E4m3), Ampere()), HasSubstr("sm_90a"));
  EXPECT_THAT(refused(Problem(256, 256, 256, DType::kFp8E5m2), Hopper()), HasSubstr("fp8_e5m2"));
  EXPECT_THAT(refused(Problem(256, 256, 264, DType::kFp8E4m3), Hopper()), HasSubstr("k = 264 is not a multiple of 16"));
  EXPECT_THAT(refused(Problem(256, 252, 256, DType::kFp8E4m3), Hopper()), HasSubstr("n = 252"));
  GemmProblem short_b = Problem(256, 256, 256, DType::kFp8E4m3);
  short_b.ldb = 128;  // a row of bᵀ is k = 256 bytes
  EXPECT_THAT(refused(short_b, Hopper()), HasSubstr("ldb = 128 is shorter than a row"));
  GemmProblem odd_a = Problem(256, 256, 256, DType::kFp8E4m3);
  odd_a.lda = 264;
  EXPECT_THAT(refused(odd_a, Hopper()), HasSubstr("lda = 264 is not a multiple of 16"));
}

// The wide sm_90a tile (GemmDevice::tile_n 256): 128 x 256 in 4 stages of
// 48 KiB (16 KiB of A, four 8 KiB B boxes; FP8: one bᵀ box of 256 rows), the
// same threads; half the tiles of the narrow one, so a grid of its own.
TEST(GemmPlan, TheWideHopperTileIs128x256InFourStages) {
  GemmDevice wide = Hopper();
  wide.tile_n = 256;
  auto plan = PlanGemm(Problem(8192, 8192, 8192), wide);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->config.tile_n, 256);
  EXPECT_EQ(plan->config.stages, 4);
  EXPECT_EQ(plan->config.threads, 384);
  EXPECT_EQ(plan->scheduler.tile_n, 256);
  EXPECT_EQ(plan->scheduler.total(), 64 * 32);
  EXPECT_EQ(plan->smem_bytes, 4 * 49152 + 64 + 1024);
  EXPECT_LE(plan->smem_bytes, kH100Optin);
  EXPECT_EQ(BoxBytes(plan->tma_a) + BoxBytes(plan->tma_b) * (256 / kTmaBoxBCols), 49152u);
  // FP8: bᵀ in one box of all 256 rows (TMA's largest box side), the same bytes.
  auto fp8 = PlanGemm(Problem(8192, 1280, 8192, DType::kFp8E4m3), wide);
  ASSERT_TRUE(fp8.ok()) << fp8.status().message();
  EXPECT_EQ(fp8->tma_b.box[1], 256u);
  EXPECT_EQ(BoxBytes(fp8->tma_a) + BoxBytes(fp8->tma_b), 49152u);
  EXPECT_EQ(fp8->smem_bytes, plan->smem_bytes);
  // 0 and 128 are the narrow tile; nothing else is asked of either arch.
  for (int narrow : {0, 128}) {
    GemmDevice d = Hopper();
    d.tile_n = narrow;
    EXPECT_EQ(PlanGemm(Problem(8192, 8192, 8192), d)->config.tile_n, 128);
  }
  GemmDevice ampere_wide = Ampere();
  ampere_wide.tile_n = 256;
  ExpectRefused(Problem(8192, 8192, 8192), ampere_wide, "GEMM tile width 256 on sm_80");
  GemmDevice odd = Hopper();
  odd.tile_n = 64;
  ExpectRefused(Problem(8192, 8192, 8192), odd, "GEMM tile width 64 on sm_90a");
  // An sm_90a device whose opt-in is short of 193 KiB has no room for it.
  wide.smem_optin = 190000;
  ExpectRefused(Problem(8192, 8192, 8192), wide, "sm_90a GEMM tile 128x256x64 with 4 stages needs 197696 bytes");
}

}  // namespace
}  // namespace braid::cuda::gemm
