// Tuning a training step (braid/tune.h): eight targets for TE's twelve
// GEMMs, backward pairs searched over what TE allows (bulk for
// column-parallel pairs, external after a row dgrad's ring), TE's defaults
// as a baseline, the whole block measured three ways, and presets keyed by
// pass whose couplings hold — on the sim backend and a real store.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../db/store_test_util.h"
#include "braid/model_files.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_guide.h"
#include "braid/te_ub_cfgs.h"
#include "braid/tune.h"

namespace braid {
namespace {

using testing::TempDir;

LayerWorkload TrainStep(int tp, int64_t seq) {
  Result<ModelSpec> m = LoadModel("llama3-8b");
  EXPECT_TRUE(m.ok()) << m.status().message();
  Result<LayerWorkload> lw = MakeLayerWorkload(*m, seq, 1, Phase::kTrain, tp, DType::kBf16);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return *lw;
}

bool Has(const std::vector<OverlapConfig>& space, Algorithm a) {
  return std::any_of(space.begin(), space.end(), [a](const OverlapConfig& c) { return c.algorithm == a; });
}

TEST(TrainTune, EightTargetsCoverTheTwelveGemmsInTheBackwardsOrder) {
  Result<std::vector<TuneTarget>> t = TargetsOfLayer(TrainStep(4, 1024));
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<std::string> names;
  for (const TuneTarget& x : *t) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"qkv.fprop", "out_proj.fprop", "fc1.fprop", "fc2.fprop", "fc2.backward",
                                             "fc1.backward", "out_proj.backward", "qkv.backward"}));
  for (const TuneTarget& x : *t) {
    EXPECT_EQ(x.layer, "llama3-8b/" + x.name.substr(0, x.name.find('.')));
    if (x.pass == Pass::kFprop) {
      EXPECT_FALSE(x.train_ops.has_value()) << x.name;
      continue;
    }
    ASSERT_TRUE(x.train_ops.has_value()) << x.name;
    ASSERT_EQ(x.train_ops->ops.size(), 2u);
    EXPECT_EQ(x.train_ops->ops[0].pass, Pass::kDgrad);
    EXPECT_EQ(x.train_ops->ops[1].pass, Pass::kWgrad);
    EXPECT_EQ(x.w.op, x.train_ops->ops[0].gemm.op);  // the target's GEMM is its dgrad's
  }
}

TEST(TrainTune, PairsAreSearchedOverWhatTransformerEngineAllowsThem) {
  Result<std::vector<TuneTarget>> t = TargetsOfLayer(TrainStep(4, 1024));
  ASSERT_TRUE(t.ok());
  const BackendKnobs knobs = *KnobsOfBackend("sim");
  for (const TuneTarget& x : *t) {
    const std::vector<OverlapConfig> space = SearchSpaceOfTarget(x, knobs, 132);
    ASSERT_FALSE(space.empty()) << x.name;
    const bool column_pair = x.train_ops && x.train_ops->ops[0].column;
    EXPECT_EQ(Has(space, Algorithm::kBulk), column_pair) << x.name;
    EXPECT_FALSE(Has(space, Algorithm::kExternal)) << x.name;  // chosen by the dgrad, never searched
    for (const OverlapConfig& c : space) EXPECT_TRUE(PlanOfTarget(x, c).ok()) << x.name << " " << c.Describe();
    if (x.train_ops && !column_pair) {
      EXPECT_TRUE(Has(space, Algorithm::kRing)) << x.name;  // the ring that feeds an external wgrad
    }
    const TeDefault te = TeDefaultOfTarget(x);
    if (column_pair) {
      EXPECT_EQ(te.config.algorithm, Algorithm::kBulk);
      EXPECT_EQ(te.config.comm_sms, 16);
    } else if (x.train_ops) {
      EXPECT_EQ(te.config.algorithm, Algorithm::kRing) << te.note;  // TE: proj/fc2 dgrad ring_exchange
    }
  }
}

// A bulk pair's two budgets (TE's <layer>_dgrad.num_sm for the all-gather,
// <layer>_wgrad.num_sm for the reduce-scatter) are searched independently,
// small ones included, in both runtimes; runtime te searches only what TE
// expresses, every candidate exported exactly.
TEST(TrainTune, BulkBudgetsAreSearchedIndependentlyAndTeCandidatesAreExpressible) {
  Result<std::vector<TuneTarget>> t = TargetsOfLayer(TrainStep(4, 1024));
  ASSERT_TRUE(t.ok());
  const BackendKnobs knobs = *KnobsOfBackend("sim");
  for (TuneRuntime runtime : {TuneRuntime::kBraid, TuneRuntime::kTe}) {
    for (const TuneTarget& x : *t) {
      const std::vector<OverlapConfig> space = SearchSpaceOfTarget(x, knobs, 132, runtime);
      ASSERT_FALSE(space.empty()) << x.name;
      std::set<std::pair<int, int>> budgets;
      for (const OverlapConfig& c : space) {
        EXPECT_TRUE(PlanOfTarget(x, c).ok()) << x.name << " " << c.Describe();
        if (c.algorithm != Algorithm::kBulk) continue;
        budgets.insert({c.comm_sms, c.wgrad_comm_sms > 0 ? c.wgrad_comm_sms : c.comm_sms});
      }
      if (x.train_ops && x.train_ops->ops[0].column) {
        for (auto [gather, scatter] : {std::pair{2, 4}, {4, 24}, {1, 32}, {16, 16}, {24, 2}}) {
          EXPECT_EQ(budgets.count({gather, scatter}), 1u) << x.name << " " << gather << "/" << scatter;
        }
      } else {
        EXPECT_TRUE(budgets.empty()) << x.name;
      }
      if (runtime != TuneRuntime::kTe) continue;
      // Every TE candidate exports exactly: its dgrad's options and, for a
      // pair, the wgrad's its plan derives.
      for (const OverlapConfig& c : space) {
        const LayerOp& op = x.train_ops ? x.train_ops->ops[0] : LayerOp{};
        const TeKey* key = x.train_ops ? TeKeyOfOp(op.name) : TeKeyOfOp(x.name);
        ASSERT_NE(key, nullptr) << x.name;
        EXPECT_TRUE(TeOptionsOf(c, *key, x.w, 4).ok()) << x.name << " " << c.Describe();
        if (!x.train_ops) continue;
        Result<std::vector<OverlapConfig>> both = TrainOpConfigs(*x.train_ops, c);
        ASSERT_TRUE(both.ok()) << both.status().message();
        const LayerOp& wgrad = x.train_ops->ops[1];
        if (wgrad.column && c.algorithm != Algorithm::kBulk) {
          EXPECT_EQ((*both)[1].algorithm, Algorithm::kSerial);  // TE runs it without overlap
        } else {
          EXPECT_TRUE(TeOptionsOf((*both)[1], *TeKeyOfOp(wgrad.name), wgrad.gemm, 4).ok())
              << wgrad.name << " " << (*both)[1].Describe();
        }
      }
    }
  }
}

TEST(TrainTune, ASessionTunesEveryGemmAndMeasuresTheBlockThreeWays) {
  TempDir dir;
  Result<SimHardware> hw = LoadSimHardware("h100-sxm");
  ASSERT_TRUE(hw.ok());
  SimBackend sim(hw->gpu, hw->topo);
  Result<std::unique_ptr<Store>> store = Store::Open(dir.Path("tune.db"));
  ASSERT_TRUE(store.ok());

  const LayerWorkload lw = TrainStep(4, 1024);
  TuneRequest q;
  q.targets = *TargetsOfLayer(lw);
  q.block = lw;
  q.workload_key = lw.Describe();
  q.topology = hw->topo.name;
  q.gpu = hw->topo.gpu;
  q.gpu_sms = hw->gpu.sm_count;
  q.backend = "sim";
  q.knobs = *KnobsOfBackend("sim");
  q.search.strategy = Strategy::kGuided;
  q.search.iters = 1;
  q.search.warmup = 0;
  q.search.recheck_max = 1;
  const SimHardware h = *hw;
  q.make_guide = [h](const TuneTarget& t) -> Result<Guide> {
    return MakeSimGuide([t](const OverlapConfig& c) { return PlanOfTarget(t, c); }, h);
  };
  Result<TuneSummary> s = RunTuning(q, sim, **store);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->results.size(), 8u);
  for (const TuneResult& r : s->results) {
    EXPECT_LE(r.time_ns, r.serial_ns) << r.op;
    EXPECT_LE(r.time_ns, r.te_default_ns) << r.op;
    EXPECT_GT(r.lower_bound_ns, 0) << r.op;
    EXPECT_LE(r.lower_bound_ns, r.time_ns * 1.0001) << r.op;
  }
  ASSERT_TRUE(s->block.has_value());
  const BlockFigures& b = *s->block;
  EXPECT_GT(b.serial.time_ns, 0);
  EXPECT_LT(b.tuned.time_ns, b.serial.time_ns);
  EXPECT_LE(b.tuned.time_ns, b.te_default.time_ns * 1.01);
  EXPECT_GT(b.tuned.lower_bound_ns, 0);
  EXPECT_GE(b.tuned.run, 0);

  // Twelve presets, one per GEMM and pass, their couplings as TE has them.
  const PresetFile f = PresetsOf(*s, "test", "2026-11-26T00:00:00Z");
  ASSERT_EQ(f.presets.size(), 12u);
  std::map<std::string, const Preset*> by_key;
  for (const Preset& p : f.presets) by_key[p.key.layer + "_" + std::string(PassName(p.key.pass))] = &p;
  ASSERT_EQ(by_key.size(), 12u);
  for (const char* linear : {"qkv", "out_proj", "fc1", "fc2"}) {
    const std::string base = std::string("llama3-8b/") + linear;
    const Preset* dgrad = by_key.at(base + "_dgrad");
    const Preset* wgrad = by_key.at(base + "_wgrad");
    const bool column = std::string(linear) == "qkv" || std::string(linear) == "fc1";
    const Algorithm d = dgrad->config.algorithm, w = wgrad->config.algorithm;
    if (column) {
      EXPECT_EQ(d == Algorithm::kBulk, w == Algorithm::kBulk) << linear;
      if (d != Algorithm::kBulk) {
        EXPECT_EQ(w, Algorithm::kSerial) << linear;
      }
    } else {
      const bool ring = d == Algorithm::kRing || d == Algorithm::kBidirRing;
      EXPECT_EQ(w, ring ? Algorithm::kExternal : Algorithm::kSerial) << linear;
    }
    EXPECT_EQ(dgrad->time_ns, wgrad->time_ns) << linear;  // the pair's
  }
  // A second, identical session replays nothing and agrees (sim is deterministic).
  Result<TuneSummary> again = RunTuning(q, sim, **store);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->block->tuned.time_ns, b.tuned.time_ns);
}

}  // namespace
}  // namespace braid
