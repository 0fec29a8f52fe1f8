// The fused algorithm's plans: one kFused step per rank (a plain GEMM at
// P == 1), matched across ranks, proven by both checks for ag_gemm, gemm_rs
// and layer plans of them; bad knobs are refused with messages.
#include <gtest/gtest.h>

#include <string>

#include "braid/layer_workload.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace fused_plan_test {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

OverlapConfig Fused(int comm_sms = 0) {
  OverlapConfig c;
  c.algorithm = Algorithm::kFused;
  c.comm_sms = comm_sms;
  return c;
}

Plan MustBuildAndCheck(const Workload& w, const OverlapConfig& cfg) {
  const std::string what = w.Describe() + " / " + cfg.Describe();
  auto plan = BuildPlan(w, cfg);
  EXPECT_TRUE(plan.ok()) << what << ": " << plan.status().message();
  if (!plan.ok()) return Plan();
  const Status st = CheckPlanStructure(*plan);
  EXPECT_TRUE(st.ok()) << what << ": structure: " << st.message();
  const Status se = CheckPlanSemantics(*plan);
  EXPECT_TRUE(se.ok()) << what << ": semantics: " << se.message();
  return *plan;
}

TEST(FusedPlan, NameParsesBothWays) {
  auto a = ParseAlgorithm("fused");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Algorithm::kFused);
  EXPECT_EQ(AlgorithmName(Algorithm::kFused), "fused");
  EXPECT_EQ(StepKindName(StepKind::kFused), "fused");
  EXPECT_HAS(ParseAlgorithm("fuse").status(), "fused");
}

TEST(FusedPlan, AgGemmAndGemmRsAreProvenForEveryTpDegree) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (int p = 1; p <= 8; ++p) {
      const Workload w{op, 24 * p, 8 * p, 16 * p, DType::kBf16, p};
      const Plan plan = MustBuildAndCheck(w, Fused(p));
      ASSERT_EQ(plan.tp(), p);
      for (int r = 0; r < p; ++r) {
        const RankPlan& rp = plan.ranks[size_t(r)];
        ASSERT_EQ(rp.steps.size(), 1u);
        const Step& s = rp.steps[0];
        EXPECT_EQ(s.lane, 0);
        if (p == 1) {
          EXPECT_EQ(s.kind, StepKind::kGemm);
          continue;
        }
        EXPECT_EQ(s.kind, StepKind::kFused);
        EXPECT_EQ(s.match, 0);
        const int64_t dt = DTypeBytes(w.dtype);
        if (op == Op::kAgGemm) {
          EXPECT_EQ(s.collective, CollectiveKind::kAllGather);
          const int64_t n_local = w.n / p;  // each rank's columns of B (the shapes divide)
          EXPECT_DOUBLE_EQ(s.flops, 2.0 * double(w.m) * double(n_local) * double(w.k));
          EXPECT_EQ(s.bytes, (p - 1) * (w.m / p) * w.k * dt);  // (P−1)/P of the gathered A
        } else {
          EXPECT_EQ(s.collective, CollectiveKind::kReduceScatter);
          const int64_t k_local = w.k / p;  // each rank's slice of the reduction (the shapes divide)
          EXPECT_DOUBLE_EQ(s.flops, 2.0 * double(w.m) * double(w.n) * double(k_local));
          EXPECT_EQ(s.bytes, (p - 1) * (w.m / p) * w.n * dt);  // (P−1)/P of the partial C
        }
      }
    }
  }
}

TEST(FusedPlan, BadKnobsAreRefusedWithMessages) {
  const Workload ag{Op::kAgGemm, 64, 64, 64, DType::kBf16, 4};
  OverlapConfig c = Fused();
  c.chunks = 2;
  EXPECT_HAS(BuildPlan(ag, c).status(), "takes no `chunks`");
  c = Fused();
  c.splits = {1, 2};
  EXPECT_FALSE(BuildPlan(ag, c).ok());
  EXPECT_HAS(BuildPlan(ag, Fused(-1)).status(), "`comm_sms` must not be negative");
  const Workload ar{Op::kGemmAr, 64, 64, 64, DType::kBf16, 4};
  EXPECT_HAS(BuildPlan(ar, Fused()).status(), "fused does not apply to gemm_ar");
  const Workload odd{Op::kGemmRs, 66, 64, 64, DType::kBf16, 4};
  EXPECT_HAS(BuildPlan(odd, Fused()).status(), "not divisible by the TP degree P=4");
}

TEST(FusedPlan, ChecksRejectABrokenFusedStep) {
  const Workload w{Op::kAgGemm, 64, 64, 64, DType::kBf16, 4};
  Plan plan = MustBuildAndCheck(w, Fused());
  Plan missing = plan;
  missing.ranks[2].steps[0].match = 7;  // no longer matched on every rank
  EXPECT_HAS(CheckPlanStructure(missing), "missing on rank");
  Plan shape = plan;
  shape.ranks[1].steps[0].c.rows = 16;  // c must be P x a rows
  EXPECT_HAS(CheckPlanStructure(shape), "fused all_gather GEMM needs c");
  Plan empty = plan;  // rank 3 multiplies rows its input does not hold
  empty.ranks[3].steps[0].a.row = 0;
  EXPECT_HAS(CheckPlanSemantics(empty), "reads empty row");
}

ModelSpec Tiny() { return testing_core::TinyModel(); }

TEST(FusedPlan, LayerPlansWithSequenceParallelismAreProven) {
  for (int p : {1, 2, 4, 8}) {
    auto lw = MakeLayerWorkload(Tiny(), 16, 2, Phase::kPrefill, p, DType::kBf16, true);
    ASSERT_TRUE(lw.ok()) << lw.status().message();
    auto plan = BuildLayerPlan(*lw, Fused());
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_TRUE(CheckPlanStructure(*plan).ok()) << CheckPlanStructure(*plan).message();
    const Status se = CheckPlanSemantics(*plan);
    EXPECT_TRUE(se.ok()) << "P=" << p << ": " << se.message();
    int fused = 0;
    for (const Step& s : plan->ranks[0].steps) fused += s.kind == StepKind::kFused;
    EXPECT_EQ(fused, p > 1 ? 4 : 0);  // qkv, out_proj, fc1, fc2
  }
  // Without sequence parallelism the TP GEMMs are gemm_ar: refused.
  auto ar = MakeLayerWorkload(Tiny(), 16, 2, Phase::kPrefill, 2, DType::kBf16, false);
  ASSERT_TRUE(ar.ok());
  EXPECT_HAS(BuildLayerPlan(*ar, Fused()).status(), "fused does not apply to gemm_ar");
}

}  // namespace
}  // namespace fused_plan_test
}  // namespace braid
