// Layer workloads and layer plans: every algorithm (iso included) builds a
// plan of the whole block that is well formed, cannot deadlock, computes
// every GEMM op's result (checked op by op) and has no data race; and iso
// overlaps as promised: part j+1's compute never waits for part j's
// all-reduces.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace layer_plan_test {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

ModelSpec Tiny() { return testing_core::TinyModel(); }

OverlapConfig Config(Algorithm a, int chunks, int lanes = 1, std::vector<int> splits = {}) {
  OverlapConfig c;
  c.algorithm = a;
  c.chunks = chunks;
  c.comm_lanes = lanes;
  c.splits = std::move(splits);
  return c;
}

LayerWorkload MustLayer(int tp, Phase phase = Phase::kPrefill, std::optional<bool> sp = std::nullopt, int64_t seq = 16,
                        int64_t batch = 2) {
  auto lw = MakeLayerWorkload(Tiny(), seq, batch, phase, tp, DType::kBf16, sp);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return lw.ok() ? *lw : LayerWorkload{};
}

void BuildsAndChecks(const LayerWorkload& lw, const OverlapConfig& cfg) {
  const std::string what = lw.Describe() + " / " + cfg.Describe();
  auto plan = BuildLayerPlan(lw, cfg);
  ASSERT_TRUE(plan.ok()) << what << ": " << plan.status().message();
  const Status st = CheckPlanStructure(*plan);
  ASSERT_TRUE(st.ok()) << what << ": structure: " << st.message();
  const Status se = CheckPlanSemantics(*plan);
  ASSERT_TRUE(se.ok()) << what << ": semantics: " << se.message();
  // Every GEMM op has an output on every rank.
  int gemm_ops = 0;
  for (const PlanOp& op : plan->ops) gemm_ops += op.gemm;
  for (const RankPlan& rp : plan->ranks) EXPECT_EQ(int(rp.outputs.size()), gemm_ops) << what;
}

TEST(LayerWorkload, OpsOfOneBlockWithSequenceParallelism) {
  const LayerWorkload lw = MustLayer(4);
  EXPECT_TRUE(lw.sequence_parallel);  // prefill default
  ASSERT_EQ(lw.ops.size(), 5u);
  const char* names[] = {"qkv", "attention", "out_proj", "fc1", "fc2"};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(lw.ops[i].name, names[i]);
  EXPECT_EQ(lw.ops[0].gemm.op, Op::kAgGemm);
  EXPECT_EQ(lw.ops[0].gemm.m, 32);
  EXPECT_EQ(lw.ops[0].gemm.n, (8 + 2 * 8) * 8);
  EXPECT_EQ(lw.ops[0].gemm.k, 64);
  EXPECT_EQ(lw.ops[1].kind, LayerOpKind::kAttention);
  // heads/P · (4·batch·seq²·head_dim)/2
  EXPECT_DOUBLE_EQ(lw.ops[1].flops, 2.0 * 4 * 2 * 16 * 16 * 8 / 2);
  EXPECT_EQ(lw.ops[2].gemm.op, Op::kGemmRs);
  EXPECT_EQ(lw.ops[2].gemm.n, 64);
  EXPECT_EQ(lw.ops[2].gemm.k, 64);
  EXPECT_EQ(lw.ops[3].gemm.n, 256);  // gated: 2·ffn
  EXPECT_EQ(lw.ops[4].gemm.k, 128);
}

TEST(LayerWorkload, DecodeHasNoSequenceParallelismAndAttendsToTheCache) {
  const LayerWorkload lw = MustLayer(2, Phase::kDecode);
  EXPECT_FALSE(lw.sequence_parallel);
  EXPECT_EQ(lw.tokens(), 2);
  EXPECT_EQ(lw.ops[0].kind, LayerOpKind::kLocalGemm);
  EXPECT_EQ(lw.ops[2].gemm.op, Op::kGemmAr);
  EXPECT_DOUBLE_EQ(lw.ops[1].flops, 4.0 * 2 * 16 * 8 * 4);  // 4·batch·seq·head_dim·heads/P
}

TEST(LayerWorkload, DivisibilityErrorsNameTheRule) {
  auto lw = MakeLayerWorkload(Tiny(), 16, 2, Phase::kPrefill, 3, DType::kBf16);
  ASSERT_FALSE(lw.ok());
  EXPECT_HAS(lw.status(), "heads=8 is not divisible by P=3");
  auto sp = MakeLayerWorkload(Tiny(), 3, 1, Phase::kPrefill, 2, DType::kBf16);
  ASSERT_FALSE(sp.ok());
  EXPECT_HAS(sp.status(), "tokens=3 is not divisible by P=2");
  EXPECT_TRUE(MakeLayerWorkload(Tiny(), 3, 1, Phase::kPrefill, 2, DType::kBf16, false).ok());
  EXPECT_FALSE(MakeLayerWorkload(Tiny(), 0, 1, Phase::kPrefill, 2, DType::kBf16).ok());
  EXPECT_FALSE(ParsePhase("backward").ok());
}

TEST(LayerPlan, EveryAlgorithmIsProvenForEveryTpDegree) {
  for (int p : {1, 2, 4, 8}) {
    for (bool sp : {true, false}) {
      const LayerWorkload lw = MustLayer(p, Phase::kPrefill, sp);
      BuildsAndChecks(lw, Config(Algorithm::kSerial, 1));
      BuildsAndChecks(lw, Config(Algorithm::kChunked, 2, 2));
      BuildsAndChecks(lw, Config(Algorithm::kChunked, 2, 1, {1, 3}));
      BuildsAndChecks(lw, Config(Algorithm::kRing, 1));
      BuildsAndChecks(lw, Config(Algorithm::kRing, 2, 2));
      BuildsAndChecks(lw, Config(Algorithm::kBidirRing, 1, 2));
      if (sp) {  // without sequence parallelism the TP GEMMs are gemm_ar, which direct refuses
        BuildsAndChecks(lw, Config(Algorithm::kDirect, 1));
        BuildsAndChecks(lw, Config(Algorithm::kDirect, 2, 2));
      } else {
        const Result<Plan> refused = BuildLayerPlan(lw, Config(Algorithm::kDirect, 1));
        ASSERT_FALSE(refused.ok());
        EXPECT_NE(refused.status().message().find("direct does not apply to gemm_ar"), std::string::npos)
            << refused.status().message();
      }
    }
    const LayerWorkload iso = MustLayer(p, Phase::kPrefill, false);
    BuildsAndChecks(iso, Config(Algorithm::kIso, 1));
    BuildsAndChecks(iso, Config(Algorithm::kIso, 2));
    BuildsAndChecks(iso, Config(Algorithm::kIso, 4, 2));
    BuildsAndChecks(iso, Config(Algorithm::kIso, 3, 1, {1, 2, 5}));  // uneven
  }
}

TEST(LayerPlan, DecodeIsProven) {
  for (int p : {1, 2, 4, 8}) {
    const LayerWorkload lw = MustLayer(p, Phase::kDecode, std::nullopt, 16, 8);
    BuildsAndChecks(lw, Config(Algorithm::kSerial, 1));
    BuildsAndChecks(lw, Config(Algorithm::kRing, 1, 2));
  }
}

TEST(LayerPlan, OpsAreChainedAndAttentionIsOneComputeStep) {
  auto plan = BuildLayerPlan(MustLayer(2), Config(Algorithm::kSerial, 1));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->ops.size(), 5u);
  const RankPlan& rp = plan->ranks[0];
  int attention = -1;
  for (const Step& s : rp.steps) {
    if (s.kind != StepKind::kCompute) continue;
    EXPECT_EQ(attention, -1) << "one compute step per rank";
    attention = s.id;
    EXPECT_EQ(s.op, 1);
    EXPECT_DOUBLE_EQ(s.flops, plan->ops.size() ? MustLayer(2).ops[1].flops : 0);
    // It waits for qkv's GEMM.
    ASSERT_EQ(s.deps.size(), 1u);
    EXPECT_EQ(rp.steps[size_t(s.deps[0])].op, 0);
  }
  ASSERT_GE(attention, 0);
  // out_proj's GEMM waits for attention.
  for (const Step& s : rp.steps) {
    if (s.op == 2 && s.kind == StepKind::kGemm) {
      EXPECT_EQ(s.deps, std::vector<int>{attention});
      break;
    }
  }
  EXPECT_EQ(rp.buffers[size_t(rp.outputs[0].buffer)].name, "qkv.C");
}

// Steps of `rp` that step `id` waits for through deps (not lane order).
std::set<int> DepClosure(const RankPlan& rp, int id) {
  std::set<int> seen;
  std::vector<int> todo = rp.steps[size_t(id)].deps;
  while (!todo.empty()) {
    const int d = todo.back();
    todo.pop_back();
    if (!seen.insert(d).second) continue;
    for (int e : rp.steps[size_t(d)].deps) todo.push_back(e);
  }
  return seen;
}

TEST(LayerPlan, IsoPartComputeNeverWaitsForTheEarlierPartsAllReduce) {
  for (int p : {2, 4, 8}) {
    auto plan = BuildLayerPlan(MustLayer(p, Phase::kPrefill, false), Config(Algorithm::kIso, 4, 2));
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    for (const RankPlan& rp : plan->ranks) {
      int checked = 0;
      for (const Step& s : rp.steps) {
        if (s.kind != StepKind::kGemm && s.kind != StepKind::kCompute) continue;
        const int part = plan->ops[size_t(s.op)].part;
        for (int d : DepClosure(rp, s.id)) {
          const Step& t = rp.steps[size_t(d)];
          if (t.kind != StepKind::kCollective) continue;
          EXPECT_EQ(plan->ops[size_t(t.op)].part, part)
              << "step " << s.id << " (" << plan->ops[size_t(s.op)].name << ") waits for "
              << plan->ops[size_t(t.op)].name << "'s all-reduce";
          EXPECT_EQ(t.collective, CollectiveKind::kAllReduce);
        }
        ++checked;
      }
      EXPECT_GT(checked, 0);
    }
    // On the compute lane, part 1's qkv, attention and out_proj come before
    // part 0's fc1 (which waits for part 0's out_proj all-reduce).
    const RankPlan& rp = plan->ranks[0];
    int fc1_part0 = -1, out_part1 = -1;
    for (const Step& s : rp.steps) {
      const PlanOp& op = plan->ops[size_t(s.op)];
      if (s.kind != StepKind::kGemm) continue;
      if (op.name == "fc1.part0" && fc1_part0 < 0) fc1_part0 = s.id;
      if (op.name == "out_proj.part1" && out_part1 < 0) out_part1 = s.id;
    }
    EXPECT_LT(out_part1, fc1_part0);
  }
}

TEST(LayerPlan, IsoAttentionWaitsForEarlierPartsQkv) {
  auto plan = BuildLayerPlan(MustLayer(2, Phase::kPrefill, false), Config(Algorithm::kIso, 2));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const RankPlan& rp = plan->ranks[0];
  for (const Step& s : rp.steps) {
    if (s.kind != StepKind::kCompute || plan->ops[size_t(s.op)].part != 1) continue;
    std::set<std::string> waits;
    for (int d : s.deps) waits.insert(plan->ops[size_t(rp.steps[size_t(d)].op)].name);
    EXPECT_EQ(waits, (std::set<std::string>{"qkv.part0", "qkv.part1"}));
    // Causal: the later part attends to more keys.
    for (const Step& t : rp.steps) {
      if (t.kind == StepKind::kCompute && plan->ops[size_t(t.op)].part == 0) {
        EXPECT_GT(s.flops, t.flops);
      }
    }
  }
}

// ISO's point (arXiv:2409.11155): one part's attention runs beside the
// other part's all-reduce. So on the compute lane each part runs its ops up
// to its all-reduce before the next part does (part 1's attention after
// part 0's out_proj, whose all-reduce it then hides), and a part's next
// ops (fc1, which wait for that all-reduce) after the later parts' out_proj.
TEST(LayerPlan, IsoRunsEachPartUpToItsAllReduceBeforeTheNextPart) {
  for (int parts : {2, 4}) {
    auto plan = BuildLayerPlan(MustLayer(4, Phase::kPrefill, false), Config(Algorithm::kIso, parts));
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const RankPlan& rp = plan->ranks[0];
    std::map<std::string, int> first;  // op name -> its first compute-lane step
    for (const Step& s : rp.steps) {
      if (s.kind != StepKind::kGemm && s.kind != StepKind::kCompute) continue;
      first.emplace(plan->ops[size_t(s.op)].name, s.id);
    }
    for (int j = 0; j + 1 < parts; ++j) {
      const std::string me = ".part" + std::to_string(j), next = ".part" + std::to_string(j + 1);
      EXPECT_LT(first.at("out_proj" + me), first.at("qkv" + next)) << parts << " parts";
      EXPECT_LT(first.at("out_proj" + next), first.at("fc1" + me)) << parts << " parts";
      EXPECT_LT(first.at("fc2" + me), first.at("fc1" + next)) << parts << " parts";
    }
  }
}

TEST(LayerPlan, IsoRules) {
  auto sp = BuildLayerPlan(MustLayer(2, Phase::kPrefill, true), Config(Algorithm::kIso, 2));
  ASSERT_FALSE(sp.ok());
  EXPECT_HAS(sp.status(), "sequence parallelism off");
  auto decode = BuildLayerPlan(MustLayer(2, Phase::kDecode), Config(Algorithm::kIso, 2));
  ASSERT_FALSE(decode.ok());
  EXPECT_HAS(decode.status(), "decode");
  auto uneven = BuildLayerPlan(MustLayer(2, Phase::kPrefill, false), Config(Algorithm::kIso, 3));
  ASSERT_FALSE(uneven.ok());
  EXPECT_HAS(uneven.status(), "sequence positions");
  Workload w;
  w.op = Op::kGemmAr;
  w.m = w.n = w.k = 64;
  w.tp = 2;
  auto single = BuildPlan(w, Config(Algorithm::kIso, 2));
  ASSERT_FALSE(single.ok());
  EXPECT_HAS(single.status(), "layer workloads only");
}

TEST(LayerPlan, BadChunksNameTheOp) {
  auto plan = BuildLayerPlan(MustLayer(8), Config(Algorithm::kChunked, 3));
  ASSERT_FALSE(plan.ok());
  EXPECT_HAS(plan.status(), "qkv: ");
}

}  // namespace
}  // namespace layer_plan_test
}  // namespace braid
