// Train workloads and plans: the backward of every linear with the shapes
// the header documents, every run algorithm's plan proven (structure,
// semantics, no race) for P 1..8, TE's bulk pair and external wgrad shaped
// as promised, and the pairings TE refuses refused with the op named.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace train_plan_test {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

// Every size divisible by every P in 1..8 (and M/P even for bidir_ring).
ModelSpec Divisible() {
  ModelSpec m;
  m.name = "divisible";
  m.hidden = 840;
  m.heads = 840;
  m.kv_heads = 840;
  m.head_dim = 1;
  m.ffn = 1680;
  m.gated_mlp = true;
  m.layers = 1;
  return m;
}

LayerWorkload Train(const ModelSpec& m, int tp, int64_t seq, int64_t batch = 1) {
  auto lw = MakeLayerWorkload(m, seq, batch, Phase::kTrain, tp, DType::kBf16);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return lw.ok() ? *lw : LayerWorkload{};
}

OverlapConfig Config(Algorithm a, int chunks = 1) {
  OverlapConfig c;
  c.algorithm = a;
  c.chunks = chunks;
  return c;
}

const PlanOp* OpNamed(const Plan& plan, const std::string& name) {
  for (const PlanOp& op : plan.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

int OpIndex(const Plan& plan, const std::string& name) {
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (plan.ops[i].name == name) return int(i);
  }
  return -1;
}

TEST(TrainWorkload, ForwardThenTheBackwardInMegatronsOrderWithTheDocumentedShapes) {
  const ModelSpec m = testing_core::TinyModel();  // hidden 64, 8 heads of 8, ffn 128 gated
  const LayerWorkload lw = Train(m, 4, 16, 2);
  ASSERT_EQ(lw.ops.size(), 14u);
  const char* names[] = {"qkv.fprop",      "attention.fprop",    "out_proj.fprop", "fc1.fprop", "fc2.fprop",
                         "fc2.dgrad",      "fc2.wgrad",          "fc1.dgrad",      "fc1.wgrad", "out_proj.dgrad",
                         "out_proj.wgrad", "attention.backward", "qkv.dgrad",      "qkv.wgrad"};
  for (size_t i = 0; i < lw.ops.size(); ++i) EXPECT_EQ(lw.ops[i].name, names[i]);
  const int64_t t = 32, qkv_out = (8 + 2 * 8) * 8, fc1_out = 256;
  auto expect = [&](size_t i, Pass pass, LayerOpKind kind, Op op, int64_t mm, int64_t n, int64_t k) {
    SCOPED_TRACE(lw.ops[i].name);
    EXPECT_EQ(lw.ops[i].pass, pass);
    EXPECT_EQ(lw.ops[i].kind, kind);
    EXPECT_EQ(lw.ops[i].gemm.op, op);
    EXPECT_EQ(lw.ops[i].gemm.m, mm);
    EXPECT_EQ(lw.ops[i].gemm.n, n);
    EXPECT_EQ(lw.ops[i].gemm.k, k);
  };
  // row-parallel fc2 (in = ffn, out = hidden): dgrad all-gathers dY; wgrad is local on it.
  expect(5, Pass::kDgrad, LayerOpKind::kTpGemm, Op::kAgGemm, t, 128, 64);
  expect(6, Pass::kWgrad, LayerOpKind::kLocalGemm, Op::kAgGemm, 64, 128, t);
  // column-parallel fc1 (in = hidden, out = 2·ffn): dgrad reduce-scatters dX; wgrad all-gathers X.
  expect(7, Pass::kDgrad, LayerOpKind::kTpGemm, Op::kGemmRs, t, 64, fc1_out);
  expect(8, Pass::kWgrad, LayerOpKind::kTpGemm, Op::kAgGemm, 64, fc1_out, t);
  expect(9, Pass::kDgrad, LayerOpKind::kTpGemm, Op::kAgGemm, t, 64, 64);
  expect(10, Pass::kWgrad, LayerOpKind::kLocalGemm, Op::kAgGemm, 64, 64, t);
  expect(12, Pass::kDgrad, LayerOpKind::kTpGemm, Op::kGemmRs, t, 64, qkv_out);
  expect(13, Pass::kWgrad, LayerOpKind::kTpGemm, Op::kAgGemm, 64, qkv_out, t);
  EXPECT_TRUE(lw.ops[12].column);
  EXPECT_FALSE(lw.ops[5].column);
  EXPECT_EQ(lw.ops[13].linear, "qkv");
  // attention.backward: 2.5× the forward's FLOPs, 2× its bytes.
  EXPECT_DOUBLE_EQ(lw.ops[11].flops, 2.5 * lw.ops[1].flops);
  EXPECT_EQ(lw.ops[11].bytes, 2 * lw.ops[1].bytes);
  // Every GEMM of the backward has the FLOPs of its forward.
  for (size_t i = 5; i < lw.ops.size(); ++i) {
    if (lw.ops[i].kind == LayerOpKind::kAttention) continue;
    const std::string& linear = lw.ops[i].linear;
    const auto fwd = std::find_if(lw.ops.begin(), lw.ops.end(), [&](const LayerOp& o) { return o.linear == linear; });
    EXPECT_DOUBLE_EQ(lw.ops[i].gemm.Flops(), fwd->gemm.Flops()) << lw.ops[i].name;
  }
  EXPECT_EQ(lw.Describe(), "tiny train seq=16 batch=2 bf16 P=4 sp=on");
}

TEST(TrainWorkload, NeedsSequenceParallelismAndNamesThePhaseAndPass) {
  auto off = MakeLayerWorkload(testing_core::TinyModel(), 16, 2, Phase::kTrain, 2, DType::kBf16, false);
  ASSERT_FALSE(off.ok());
  EXPECT_HAS(off.status(), "sequence parallelism");
  EXPECT_EQ(*ParsePhase("train"), Phase::kTrain);
  EXPECT_HAS(ParsePhase("backward").status(), "known: prefill, decode, train");
  EXPECT_EQ(*ParsePass("wgrad"), Pass::kWgrad);
  EXPECT_EQ(PassName(Pass::kDgrad), "dgrad");
  EXPECT_HAS(ParsePass("bprop").status(), "unknown pass 'bprop' (known: fprop, dgrad, wgrad)");
}

TEST(TrainPlan, EveryRunAlgorithmIsProvenForPOneToEight) {
  const ModelSpec m = Divisible();
  const std::vector<OverlapConfig> configs = {Config(Algorithm::kSerial),    Config(Algorithm::kChunked, 2),
                                              Config(Algorithm::kRing),      Config(Algorithm::kRing, 2),
                                              Config(Algorithm::kBidirRing), Config(Algorithm::kFused),
                                              Config(Algorithm::kBulk)};
  for (int p = 1; p <= 8; ++p) {
    const LayerWorkload lw = Train(m, p, 1680);
    for (const OverlapConfig& cfg : configs) {
      const std::string what = "P=" + std::to_string(p) + " " + cfg.Describe();
      auto plan = BuildLayerPlan(lw, cfg);
      ASSERT_TRUE(plan.ok()) << what << ": " << plan.status().message();
      ASSERT_EQ(plan->ops.size(), 14u) << what;
      const Status st = CheckPlanStructure(*plan);
      ASSERT_TRUE(st.ok()) << what << ": structure: " << st.message();
      const Status se = CheckPlanSemantics(*plan);
      ASSERT_TRUE(se.ok()) << what << ": semantics: " << se.message();
      for (const RankPlan& rp : plan->ranks) EXPECT_EQ(rp.outputs.size(), 12u) << what;
    }
  }
}

// What the tuner runs: every GEMM at its own config, their comm lanes and
// priorities differing; the plan gets one lane set per priority.
TEST(TrainPlan, GemmsAtTheirOwnLanesAndPrioritiesShareOnePlan) {
  const LayerWorkload base = Train(Divisible(), 4, 1680);
  auto with = [](Algorithm a, int chunks, int lanes, bool high) {
    OverlapConfig c = Config(a, chunks);
    c.comm_lanes = lanes;
    c.comm_high_priority = high;
    return c;
  };
  LayerWorkload lw = base;
  for (LayerOp& op : lw.ops) {
    if (op.name == "qkv.fprop") op.config = with(Algorithm::kRing, 1, 2, true);
    if (op.name == "out_proj.fprop") op.config = with(Algorithm::kChunked, 4, 1, false);
    if (op.name == "fc2.dgrad") op.config = with(Algorithm::kBidirRing, 1, 2, false);
    if (op.name == "fc1.dgrad") op.config = with(Algorithm::kBulk, 1, 1, false);
    if (op.name == "fc1.wgrad") op.config = with(Algorithm::kBulk, 1, 1, false);
  }
  auto plan = BuildLayerPlan(lw, Config(Algorithm::kSerial));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  int high = 0, normal = 0, bulk = 0;
  for (const Lane& l : plan->lanes) {
    if (l.kind != LaneKind::kComm) continue;
    if (l.name == "bulk") {
      ++bulk;  // the fc1 pair's collectives (normal priority)
      EXPECT_EQ(l.priority, 0);
      continue;
    }
    ++(l.priority > 0 ? high : normal);
  }
  EXPECT_EQ(high, 2);
  EXPECT_EQ(normal, 2);
  EXPECT_EQ(bulk, 1);
  EXPECT_EQ(OpNamed(*plan, "fc2.wgrad")->method, Algorithm::kExternal);
  const Status st = CheckPlanStructure(*plan);
  ASSERT_TRUE(st.ok()) << st.message();
  const Status se = CheckPlanSemantics(*plan);
  EXPECT_TRUE(se.ok()) << se.message();
  // Each step of out_proj.fprop (normal priority) is on a normal-priority lane.
  for (const Step& s : plan->ranks[0].steps) {
    if (s.lane == 0) continue;
    const int priority = plan->lanes[size_t(s.lane)].priority;
    const bool normal_op = s.name.rfind("out_proj.fprop.", 0) == 0;
    const bool high_op = s.name.rfind("qkv.fprop.", 0) == 0;
    if (normal_op || high_op) {
      EXPECT_EQ(priority, high_op ? 1 : 0) << s.name;
    }
  }
}

TEST(TrainPlan, EachGemmIsLabelledWithTheMethodTeWouldPair) {
  const LayerWorkload lw = Train(Divisible(), 4, 1680);
  auto ring = BuildLayerPlan(lw, Config(Algorithm::kRing));
  ASSERT_TRUE(ring.ok()) << ring.status().message();
  EXPECT_EQ(OpNamed(*ring, "qkv.fprop")->method, Algorithm::kRing);
  EXPECT_EQ(OpNamed(*ring, "qkv.dgrad")->method, Algorithm::kRing);
  EXPECT_EQ(OpNamed(*ring, "qkv.wgrad")->method, Algorithm::kSerial);  // a non-bulk dgrad drops the bulk wgrad
  EXPECT_EQ(OpNamed(*ring, "fc2.dgrad")->method, Algorithm::kRing);
  EXPECT_EQ(OpNamed(*ring, "fc2.wgrad")->method, Algorithm::kExternal);
  auto bulk = BuildLayerPlan(lw, Config(Algorithm::kBulk));
  ASSERT_TRUE(bulk.ok()) << bulk.status().message();
  EXPECT_EQ(OpNamed(*bulk, "fc1.fprop")->method, Algorithm::kSerial);  // bulk is backward only
  EXPECT_EQ(OpNamed(*bulk, "fc1.dgrad")->method, Algorithm::kBulk);
  EXPECT_EQ(OpNamed(*bulk, "fc1.wgrad")->method, Algorithm::kBulk);
  EXPECT_EQ(OpNamed(*bulk, "out_proj.dgrad")->method, Algorithm::kSerial);
  EXPECT_EQ(OpNamed(*bulk, "out_proj.wgrad")->method, Algorithm::kSerial);
}

// TE's bulk: the wgrad's all-gather runs beside the dgrad GEMM and the
// dgrad's reduce-scatter beside the wgrad GEMM; neither waits for the other.
TEST(TrainPlan, ABulkPairIsTwoIndependentBranches) {
  auto plan = BuildLayerPlan(Train(Divisible(), 4, 1680), Config(Algorithm::kBulk));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const int dgrad = OpIndex(*plan, "qkv.dgrad"), wgrad = OpIndex(*plan, "qkv.wgrad");
  for (const RankPlan& rp : plan->ranks) {
    int ag = -1, rs = -1, dgemm = -1, wgemm = -1;
    for (const Step& s : rp.steps) {
      if (s.op == wgrad && s.kind == StepKind::kCollective) ag = s.id;
      if (s.op == dgrad && s.kind == StepKind::kCollective) rs = s.id;
      if (s.op == dgrad && s.kind == StepKind::kGemm) dgemm = s.id;
      if (s.op == wgrad && s.kind == StepKind::kGemm) wgemm = s.id;
    }
    ASSERT_GE(std::min({ag, rs, dgemm, wgemm}), 0);
    EXPECT_LT(ag, dgemm);  // issued first on its comm lane, beside the dgrad GEMM
    EXPECT_LT(ag, rs);
    for (int d : rp.steps[size_t(ag)].deps) EXPECT_NE(rp.steps[size_t(d)].op, dgrad);
    EXPECT_EQ(rp.steps[size_t(rs)].deps, std::vector<int>{dgemm});
    EXPECT_EQ(rp.steps[size_t(wgemm)].deps, std::vector<int>{ag});  // not the reduce-scatter
    // Both collectives on the pair's own lane, as TE's bulk overlap has its own stream.
    EXPECT_EQ(plan->lanes[size_t(rp.steps[size_t(ag)].lane)].name, "bulk");
    EXPECT_EQ(rp.steps[size_t(rs)].lane, rp.steps[size_t(ag)].lane);
  }
}

// TE's external: the row-parallel wgrad is fed slice by slice by its dgrad's ring.
TEST(TrainPlan, AnExternalWgradSliceFollowsTheRingStepThatDeliveredItsBlock) {
  const int p = 4;
  auto plan = BuildLayerPlan(Train(Divisible(), p, 1680), Config(Algorithm::kRing));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const int dgrad = OpIndex(*plan, "fc2.dgrad"), wgrad = OpIndex(*plan, "fc2.wgrad");
  for (const RankPlan& rp : plan->ranks) {
    std::vector<int> slices;
    for (const Step& s : rp.steps) {
      if (s.op == wgrad) slices.push_back(s.id);
    }
    ASSERT_EQ(int(slices.size()), p);
    for (int j = 0; j < p; ++j) {
      const Step& w = rp.steps[size_t(slices[size_t(j)])];
      EXPECT_EQ(w.ring_step, j);
      ASSERT_FALSE(w.deps.empty());
      for (int d : w.deps) {
        EXPECT_EQ(rp.steps[size_t(d)].op, dgrad);
        EXPECT_EQ(rp.steps[size_t(d)].ring_step, j);
      }
      // Right after that ring step's GEMM on the compute lane: the next
      // dgrad GEMM comes after it.
      const Step& before = rp.steps[size_t(w.id - 1)];
      EXPECT_TRUE(before.op == dgrad || before.op == wgrad);
      if (j + 1 < p) {
        EXPECT_LT(w.id, slices[size_t(j + 1)]);
      }
    }
    int last_dgrad_gemm = -1;
    for (const Step& s : rp.steps) {
      if (s.op == dgrad && s.kind == StepKind::kGemm) last_dgrad_gemm = s.id;
    }
    EXPECT_LT(slices[size_t(p - 2)], last_dgrad_gemm);  // interleaved, not all after the dgrad
  }
}

// A trace of a training step says which GEMM and pass each slice belongs to.
TEST(TrainPlan, EveryStepIsNamedAfterItsOpAndPass) {
  auto plan = BuildLayerPlan(Train(Divisible(), 4, 1680), Config(Algorithm::kBulk));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (const RankPlan& rp : plan->ranks) {
    for (const Step& s : rp.steps) {
      const std::string& op = plan->ops[size_t(s.op)].name;
      if (s.kind == StepKind::kCompute) {
        EXPECT_EQ(s.name, op);
      } else {
        EXPECT_EQ(s.name.rfind(op + ".", 0), 0u) << s.name << " of " << op;
      }
    }
  }
  EXPECT_EQ(plan->ranks[0].steps[0].name, "qkv.fprop.all_gather");
}

TEST(TrainPlan, AGemmsOwnMethodOverridesTheRunsAndBadPairingsAreRefused) {
  LayerWorkload lw = Train(Divisible(), 4, 1680);
  auto index = [&](const std::string& name) {
    for (size_t i = 0; i < lw.ops.size(); ++i) {
      if (lw.ops[i].name == name) return i;
    }
    return size_t(0);
  };
  LayerWorkload own = lw;
  own.ops[index("fc1.dgrad")].config = Config(Algorithm::kBulk);
  own.ops[index("fc2.fprop")].config = Config(Algorithm::kChunked, 4);
  auto plan = BuildLayerPlan(own, Config(Algorithm::kSerial));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(OpNamed(*plan, "fc1.wgrad")->method, Algorithm::kBulk);
  EXPECT_EQ(OpNamed(*plan, "fc2.fprop")->method, Algorithm::kChunked);
  EXPECT_EQ(OpNamed(*plan, "qkv.dgrad")->method, Algorithm::kSerial);
  EXPECT_TRUE(CheckPlanSemantics(*plan).ok());

  auto refused = [&](const std::string& name, Algorithm m, const OverlapConfig& run, const char* text) {
    LayerWorkload bad = lw;
    bad.ops[index(name)].config = Config(m);
    auto p = BuildLayerPlan(bad, run);
    ASSERT_FALSE(p.ok()) << name;
    EXPECT_HAS(p.status(), text);
  };
  refused("qkv.wgrad", Algorithm::kBulk, Config(Algorithm::kRing), "qkv.wgrad: bulk pairs a wgrad with its dgrad");
  refused("qkv.wgrad", Algorithm::kSerial, Config(Algorithm::kBulk), "qkv.dgrad is bulk, so its wgrad must be");
  refused("fc2.wgrad", Algorithm::kExternal, Config(Algorithm::kSerial),
          "fc2.wgrad: external is fed by its dgrad's ring exchange: fc2.dgrad must be ring or bidir_ring");
  refused("fc2.dgrad", Algorithm::kBulk, Config(Algorithm::kSerial), "fc2.dgrad: bulk applies to the backward of");
  refused("qkv.fprop", Algorithm::kBulk, Config(Algorithm::kSerial), "qkv.fprop: bulk applies");
  refused("fc2.wgrad", Algorithm::kRing, Config(Algorithm::kSerial), "fc2.wgrad: ring does not apply");
  refused("qkv.dgrad", Algorithm::kExternal, Config(Algorithm::kSerial), "qkv.dgrad: external applies to the wgrad");
  EXPECT_HAS(BuildLayerPlan(lw, Config(Algorithm::kExternal)).status(), "external is chosen by its dgrad");
  EXPECT_HAS(BuildLayerPlan(lw, Config(Algorithm::kIso)).status(), "iso splits a prefill's sequence");
  EXPECT_HAS(BuildLayerPlan(lw, Config(Algorithm::kBulk, 2)).status(), "bulk overlaps whole collectives");
}

TEST(TrainPlan, BulkAndExternalAreRefusedOutsideTraining) {
  Workload w{Op::kGemmRs, 64, 64, 64, DType::kBf16, 2};
  EXPECT_HAS(BuildPlan(w, Config(Algorithm::kBulk)).status(), "bulk is a backward method");
  EXPECT_HAS(BuildPlan(w, Config(Algorithm::kExternal)).status(), "external is a backward method");
  auto prefill = MakeLayerWorkload(testing_core::TinyModel(), 16, 2, Phase::kPrefill, 2, DType::kBf16);
  ASSERT_TRUE(prefill.ok());
  EXPECT_HAS(BuildLayerPlan(*prefill, Config(Algorithm::kBulk)).status(), "applies to training layers");
  EXPECT_EQ(*ParseAlgorithm("external"), Algorithm::kExternal);
  EXPECT_EQ(AlgorithmName(Algorithm::kBulk), "bulk");
}

}  // namespace
}  // namespace train_plan_test
}  // namespace braid
