// The comm dtype knob (OverlapConfig::comm_dtype): what an FP8 GEMM's
// transfers move, the bytes the planners give them, and the combinations
// refused (a bf16 GEMM, a dtype the GEMM has not, FP8 partial sums through a
// collective).
#include <gtest/gtest.h>

#include <string>

#include "braid/layer_workload.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

OverlapConfig Config(Algorithm a, std::optional<DType> comm) {
  OverlapConfig c;
  c.algorithm = a;
  c.comm_dtype = comm;
  return c;
}

// Bytes every send / recv / collective step of rank 0 moves, summed.
int64_t CommBytesOfRank0(const Plan& plan) {
  int64_t bytes = 0;
  for (const Step& s : plan.ranks[0].steps) {
    if (s.kind == StepKind::kSend || s.kind == StepKind::kCollective) bytes += s.bytes;
  }
  return bytes;
}

TEST(CommDType, UnsetFollowsTheWorkloadAndSetOverridesIt) {
  const Workload ag{Op::kAgGemm, 64, 64, 64, DType::kFp8E4m3, 2};
  const Workload rs{Op::kGemmRs, 64, 64, 64, DType::kFp8E4m3, 2};
  EXPECT_EQ(CommDType(ag, OverlapConfig{}), DType::kFp8E4m3);
  EXPECT_EQ(CommDType(rs, OverlapConfig{}), DType::kBf16);
  EXPECT_EQ(CommDType(ag, Config(Algorithm::kRing, DType::kBf16)), DType::kBf16);
  EXPECT_EQ(CommDType(rs, Config(Algorithm::kRing, DType::kFp8E4m3)), DType::kFp8E4m3);
  // A plan answers for its ops what the planner sized their transfers by.
  Result<Plan> plan = BuildPlan(rs, Config(Algorithm::kRing, DType::kFp8E4m3));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->op_comm_dtype(0), DType::kFp8E4m3);
}

TEST(CommDType, AnFp8AllGatherMovesHalfTheBytesOfABf16One) {
  const Workload ag{Op::kAgGemm, 256, 128, 64, DType::kFp8E4m3, 4};
  for (Algorithm a :
       {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDirect}) {
    OverlapConfig fp8 = Config(a, std::nullopt), bf16 = Config(a, DType::kBf16);
    if (a == Algorithm::kChunked) fp8.chunks = bf16.chunks = 2;
    Result<Plan> p8 = BuildPlan(ag, fp8), p16 = BuildPlan(ag, bf16);
    ASSERT_TRUE(p8.ok()) << p8.status().message();
    ASSERT_TRUE(p16.ok()) << p16.status().message();
    EXPECT_TRUE(CheckPlanStructure(*p16).ok());
    // Each rank receives the other P-1 blocks of A (M/P × K): 3 × 64 × 64.
    const int64_t b8 = CommBytesOfRank0(*p8), b16 = CommBytesOfRank0(*p16);
    EXPECT_GT(b8, 0) << AlgorithmName(a);
    EXPECT_EQ(b16, 2 * b8) << AlgorithmName(a);
  }
}

TEST(CommDType, Fp8PartialSumsGoThroughRingsOnly) {
  const Workload rs{Op::kGemmRs, 256, 128, 64, DType::kFp8E4m3, 4};
  for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirRing}) {
    Result<Plan> p8 = BuildPlan(rs, Config(a, DType::kFp8E4m3));
    Result<Plan> p16 = BuildPlan(rs, Config(a, std::nullopt));
    ASSERT_TRUE(p8.ok()) << p8.status().message();
    ASSERT_TRUE(p16.ok()) << p16.status().message();
    EXPECT_EQ(CommBytesOfRank0(*p16), 2 * CommBytesOfRank0(*p8)) << AlgorithmName(a);
  }
  for (Algorithm a : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kDirect}) {
    const Status s = Config(a, DType::kFp8E4m3).Validate(rs);
    EXPECT_FALSE(s.ok());
    EXPECT_HAS(s, "only ring and bidir_ring");
    EXPECT_HAS(s, std::string(AlgorithmName(a)) + " reduces in the wire dtype");
  }
  const Workload ar{Op::kGemmAr, 256, 128, 64, DType::kFp8E4m3, 4};
  EXPECT_HAS(Config(Algorithm::kSerial, DType::kFp8E4m3).Validate(ar), "with gemm_rs (sequence parallelism on)");
}

TEST(CommDType, RefusesWhatTheGemmCannotMove) {
  const Workload bf16{Op::kAgGemm, 64, 64, 64, DType::kBf16, 2};
  const Status a = Config(Algorithm::kRing, DType::kFp8E4m3).Validate(bf16);
  EXPECT_HAS(a, "applies to FP8 GEMMs only: a bf16 GEMM moves bf16");
  EXPECT_TRUE(Config(Algorithm::kRing, DType::kBf16).Validate(bf16).ok());  // its own dtype: a no-op

  const Workload e4m3{Op::kAgGemm, 64, 64, 64, DType::kFp8E4m3, 2};
  EXPECT_HAS(Config(Algorithm::kRing, DType::kFp8E5m2).Validate(e4m3),
             "moves fp8_e4m3 (its input) or bf16 (its output)");
  EXPECT_HAS(Config(Algorithm::kRing, DType::kFp32).Validate(e4m3), "does not fit a fp8_e4m3 GEMM");
}

TEST(CommDType, ParsesAutoAndDTypeNames) {
  Result<std::optional<DType>> a = ParseCommDType("auto");
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_value());
  Result<std::optional<DType>> b = ParseCommDType("bf16");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(**b, DType::kBf16);
  EXPECT_HAS(ParseCommDType("fp8").status(), "ambiguous");
  EXPECT_HAS(ParseCommDType("int4").status(), "or auto");
}

TEST(CommDType, DescribeSaysWhatAConfigMoves) {
  EXPECT_EQ(Config(Algorithm::kRing, std::nullopt).Describe().find("comm="), std::string::npos);
  EXPECT_NE(Config(Algorithm::kRing, DType::kFp8E4m3).Describe().find("comm=fp8_e4m3"), std::string::npos);
}

TEST(CommDType, ALayerNamesTheGemmThatCannotMoveIt) {
  auto lw = MakeLayerWorkload(testing_core::TinyModel(), 16, 1, Phase::kPrefill, 4, DType::kFp8E4m3, true);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  OverlapConfig chunked = Config(Algorithm::kChunked, DType::kFp8E4m3);
  chunked.chunks = 2;
  const Result<Plan> refused = BuildLayerPlan(*lw, chunked);
  ASSERT_FALSE(refused.ok());
  EXPECT_HAS(refused.status(), "out_proj: `comm_dtype` fp8_e4m3 makes gemm_rs reduce FP8 partial sums");
  EXPECT_TRUE(BuildLayerPlan(*lw, Config(Algorithm::kRing, DType::kFp8E4m3)).ok());
  EXPECT_TRUE(BuildLayerPlan(*lw, Config(Algorithm::kChunked, DType::kBf16)).ok());
}

TEST(CommDType, ATrainStepRefusesFp8PartialSumsBesideAWgrad) {
  auto lw = MakeLayerWorkload(testing_core::TinyModel(), 16, 1, Phase::kTrain, 4, DType::kFp8E4m3, true);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  // bulk reduce-scatters a column dgrad's output with a collective.
  const Result<Plan> bulk = BuildLayerPlan(*lw, Config(Algorithm::kBulk, DType::kFp8E4m3));
  ASSERT_FALSE(bulk.ok());
  EXPECT_HAS(bulk.status(), "reduce FP8 partial sums");
  // ring everywhere it applies: every reduction goes round the ring.
  const Result<Plan> ring = BuildLayerPlan(*lw, Config(Algorithm::kRing, DType::kFp8E4m3));
  ASSERT_TRUE(ring.ok()) << ring.status().message();
  EXPECT_TRUE(CheckPlanStructure(*ring).ok());
  for (int i = 0; i < int(ring->ops.size()); ++i) {
    const PlanOp& op = ring->ops[size_t(i)];
    if (op.gemm && !op.local) {
      EXPECT_EQ(ring->op_comm_dtype(i), DType::kFp8E4m3) << op.name;
    }
  }
}

}  // namespace
}  // namespace braid
