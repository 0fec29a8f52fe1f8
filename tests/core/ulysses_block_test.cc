// A Ulysses block (MakeUlyssesLayerWorkload, BuildLayerPlan): every plan is
// proven by the plan checker for P 1..8, both methods, sub-chunks, lanes and
// dtypes; its MLP GEMMs stay on their rank's rows with no transfer; its
// baseline is the plain all-to-all; and what does not fit a Ulysses block
// is refused naming the field.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "braid/layer_workload.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace ulysses_block_test {
namespace {

OverlapConfig Config(Algorithm a, int chunks = 1, int lanes = 1) {
  OverlapConfig c;
  c.algorithm = a;
  c.chunks = chunks;
  c.comm_lanes = lanes;
  return c;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

LayerWorkload MustMake(int p, int64_t seq = 16, int64_t batch = 2, DType dt = DType::kBf16) {
  Result<LayerWorkload> lw = MakeUlyssesLayerWorkload(testing_core::TinyModel(), seq, batch, Phase::kPrefill, p, dt);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return lw.ok() ? std::move(lw).value() : LayerWorkload{};
}

int TransfersOfOp(const Plan& plan, int op) {
  int n = 0;
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      if (s.op == op && (s.kind == StepKind::kSend || s.kind == StepKind::kRecv)) ++n;
    }
  }
  return n;
}

TEST(UlyssesBlock, TheOpsAreTheTwoProjectionsAttentionAndARowLocalMlp) {
  const LayerWorkload lw = MustMake(4);
  EXPECT_TRUE(lw.ulysses);
  EXPECT_TRUE(Contains(lw.Describe(), "sp=ulysses")) << lw.Describe();
  ASSERT_EQ(lw.ops.size(), 5u);
  EXPECT_EQ(lw.ops[0].name, "qkv");
  EXPECT_EQ(lw.ops[0].kind, LayerOpKind::kTpGemm);
  EXPECT_EQ(lw.ops[0].gemm.op, Op::kAgGemm);
  EXPECT_EQ(lw.ops[1].kind, LayerOpKind::kAttention);
  EXPECT_EQ(lw.ops[2].name, "out_proj");
  EXPECT_EQ(lw.ops[2].gemm.op, Op::kGemmRs);
  for (size_t i : {3u, 4u}) EXPECT_EQ(lw.ops[i].kind, LayerOpKind::kRowLocalGemm) << lw.ops[i].name;
  // Attention on heads/P heads over the whole sequence: the TP layer's figure.
  const Result<LayerWorkload> tp = MakeLayerWorkload(testing_core::TinyModel(), 16, 2, Phase::kPrefill, 4, lw.dtype);
  ASSERT_TRUE(tp.ok());
  EXPECT_DOUBLE_EQ(lw.ops[1].flops, tp->ops[1].flops);
  EXPECT_EQ(lw.ops[1].bytes, tp->ops[1].bytes);
}

TEST(UlyssesBlock, EveryPlanIsProvenForP1To8) {
  int proven = 0;
  for (int p = 1; p <= 8; ++p) {
    if (8 % p != 0) continue;  // TinyModel's 8 heads
    for (DType dt : {DType::kBf16, DType::kFp8E4m3}) {
      for (Algorithm a : {Algorithm::kA2a, Algorithm::kA2aDirect}) {
        const int max_chunks = a == Algorithm::kA2a ? 1 : 4;
        for (int chunks = 1; chunks <= max_chunks; chunks *= 2) {
          for (int lanes = 1; lanes <= 2; ++lanes) {
            const LayerWorkload lw = MustMake(p, 16 * int64_t(p), 2, dt);
            const Result<Plan> plan = BuildLayerPlan(lw, Config(a, chunks, lanes));
            ASSERT_TRUE(plan.ok()) << lw.Describe() << ": " << plan.status().message();
            SCOPED_TRACE(lw.Describe() + " " + plan->config.Describe());
            const Status structure = CheckPlanStructure(*plan);
            ASSERT_TRUE(structure.ok()) << structure.message();
            const Status semantics = CheckPlanSemantics(*plan);
            ASSERT_TRUE(semantics.ok()) << semantics.message();
            ++proven;
          }
        }
      }
    }
  }
  EXPECT_EQ(proven, 4 * 2 * (2 + 3 * 2));  // P 1, 2, 4, 8 × dtypes × (a2a lanes + a2a_direct chunks × lanes)
}

TEST(UlyssesBlock, TheMlpMultipliesTheRanksOwnRowsByTheWholeWeightWithNoTransfer) {
  const LayerWorkload lw = MustMake(4);
  const Result<Plan> plan = BuildLayerPlan(lw, Config(Algorithm::kA2aDirect));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (int op : {3, 4}) {
    const PlanOp& po = plan->ops[size_t(op)];
    EXPECT_TRUE(po.local) << po.name;
    EXPECT_TRUE(plan->op_products(op)) << po.name;
    EXPECT_EQ(TransfersOfOp(*plan, op), 0) << po.name;
    const int64_t rows = po.workload.m / 4;
    for (int r = 0; r < 4; ++r) {
      const RankPlan& rp = plan->ranks[size_t(r)];
      bool found = false;
      for (const OpOutput& out : rp.outputs) {
        if (out.op != op) continue;
        found = true;
        EXPECT_EQ(out.window.row0, r * rows);
        EXPECT_EQ(out.window.rows, rows);
        EXPECT_EQ(out.window.col0, 0);
        EXPECT_EQ(out.window.cols, po.workload.n);
      }
      EXPECT_TRUE(found) << po.name << " rank " << r;
    }
  }
  EXPECT_GT(TransfersOfOp(*plan, 0), 0);
  EXPECT_GT(TransfersOfOp(*plan, 2), 0);
  // The checker holds the MLP to its rows: another rank's rows are caught.
  Plan wrong = *plan;
  for (OpOutput& out : wrong.ranks[1].outputs) {
    if (out.op == 3) out.window.row0 = 0;
  }
  EXPECT_FALSE(CheckPlanSemantics(wrong).ok());
}

TEST(UlyssesBlock, TheBaselineIsThePlainAllToAllAndOpsMayDiffer) {
  LayerWorkload lw = MustMake(2);
  const Result<Plan> serial = BuildSerialLayerPlan(lw);
  ASSERT_TRUE(serial.ok()) << serial.status().message();
  EXPECT_EQ(serial->ops[0].method, Algorithm::kA2a);
  EXPECT_EQ(serial->ops[2].method, Algorithm::kA2a);
  lw.ops[0].config = Config(Algorithm::kA2aDirect, 2);
  const Result<Plan> mixed = BuildLayerPlan(lw, Config(Algorithm::kA2a));
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();
  EXPECT_EQ(mixed->ops[0].method, Algorithm::kA2aDirect);
  EXPECT_EQ(mixed->ops[2].method, Algorithm::kA2a);
  EXPECT_TRUE(CheckPlanSemantics(*mixed).ok());
}

TEST(UlyssesBlock, TensorParallelMethodsAreRefusedNamingTheOp) {
  LayerWorkload lw = MustMake(2);
  for (Algorithm a : {Algorithm::kSerial, Algorithm::kRing, Algorithm::kDirect, Algorithm::kIso, Algorithm::kFused}) {
    const Result<Plan> run = BuildLayerPlan(lw, Config(a));
    ASSERT_FALSE(run.ok()) << AlgorithmName(a);
    EXPECT_TRUE(run.status().is_user_error());
    EXPECT_TRUE(Contains(run.status().message(), "a2a or a2a_direct")) << run.status().message();
  }
  lw.ops[2].config = Config(Algorithm::kRing);
  const Result<Plan> own = BuildLayerPlan(lw, Config(Algorithm::kA2a));
  ASSERT_FALSE(own.ok());
  EXPECT_TRUE(Contains(own.status().message(), "out_proj: `algorithm` ring")) << own.status().message();
}

TEST(UlyssesBlock, WhatDoesNotFitIsRefusedNamingTheField) {
  const ModelSpec tiny = testing_core::TinyModel();
  struct Case {
    ModelSpec model;
    int64_t seq;
    Phase phase;
    int p;
    std::string says;
  };
  ModelSpec gqa = tiny;
  gqa.kv_heads = 2;
  ModelSpec odd = tiny;
  odd.heads = 6;
  odd.kv_heads = 6;
  const Case cases[] = {
      {tiny, 16, Phase::kDecode, 2, "decode"},     {tiny, 16, Phase::kTrain, 2, "training step"},
      {tiny, 18, Phase::kPrefill, 4, "`seq`=18"},  {odd, 16, Phase::kPrefill, 4, "heads=6"},
      {gqa, 16, Phase::kPrefill, 4, "kv_heads=2"}, {tiny, 16, Phase::kPrefill, 0, "`tp`"},
  };
  for (const Case& c : cases) {
    const Result<LayerWorkload> lw = MakeUlyssesLayerWorkload(c.model, c.seq, 1, c.phase, c.p, DType::kBf16);
    ASSERT_FALSE(lw.ok()) << c.says;
    EXPECT_TRUE(lw.status().is_user_error());
    EXPECT_TRUE(Contains(lw.status().message(), c.says)) << lw.status().message();
    EXPECT_EQ(lw.status().message().find('\n'), std::string::npos);
  }
  // The MLP needs no divisibility: an ffn that P does not divide is fine.
  ModelSpec ffn = tiny;
  ffn.ffn = 100;
  EXPECT_TRUE(MakeUlyssesLayerWorkload(ffn, 16, 1, Phase::kPrefill, 8, DType::kBf16).ok());
}

}  // namespace
}  // namespace ulysses_block_test
}  // namespace braid
