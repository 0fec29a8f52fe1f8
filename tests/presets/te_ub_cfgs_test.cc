// TransformerEngine's ub_cfgs as Braid reads them (presets/include/braid/
// te_ub_cfgs.h): the YAML reader, initialize_ub's defaults and pairing
// rules, the refusals, and the one mapping between TE options and Braid
// configs, checked both ways and against the independent witness of TE's
// rules in tests/presets/te_ub_rules.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "braid/comm_sms_effect.h"
#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/planner.h"
#include "braid/te_export.h"
#include "braid/te_ub_cfgs.h"
#include "te_test_presets.h"
#include "te_ub_rules.h"

namespace braid {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kH100Sms = 132;

LayerWorkload Block(Phase phase, int tp = 8, int64_t seq = 4096, DType dtype = DType::kBf16) {
  auto model = LoadModel("llama3-70b");
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto lw = MakeLayerWorkload(*model, seq, 1, phase, tp, dtype, true);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return *lw;
}

Result<TeBlockConfig> Resolve(const std::string& yaml, const LayerWorkload& lw, int sms = kH100Sms) {
  BRAID_ASSIGN_OR_RETURN(auto file, ParseTeUbCfgsYaml(yaml, "ub.yaml"));
  return ResolveTeUbCfgs(&file, lw, sms);
}

const TeKeyConfig& Key(const TeBlockConfig& b, const std::string& name) {
  for (const TeKeyConfig& k : b.keys) {
    if (k.key->name == name) return k;
  }
  ADD_FAILURE() << "no key " << name;
  return b.keys.front();
}

// One line naming the file, the key and the option, as every refusal must.
void ExpectRefused(const std::string& yaml, const std::vector<std::string>& mentions,
                   const LayerWorkload& lw = Block(Phase::kTrain)) {
  auto r = Resolve(yaml, lw);
  ASSERT_FALSE(r.ok()) << yaml;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << r.status().message();
  for (const std::string& m : mentions) EXPECT_THAT(r.status().message(), HasSubstr(m)) << yaml;
}

// TE's defaults with no file: initialize_ub's get_default_config per key.
TEST(TeUbCfgs, NoFileIsTesDefaultsPerMethod) {
  auto b = ResolveTeUbCfgs(nullptr, Block(Phase::kTrain), kH100Sms);
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b->keys.size(), 12u);
  const TeOptions ring = Key(*b, "qkv_fprop").options;
  EXPECT_EQ(ring.method, TeMethod::kRingExchange);
  EXPECT_EQ(ring.num_sm, 1);
  EXPECT_EQ(ring.cga_size, 1);
  EXPECT_EQ(ring.set_sm_margin, 0);
  EXPECT_EQ(ring.num_splits, 8);  // tp
  EXPECT_EQ(ring.use_ce, 1);
  EXPECT_EQ(ring.fp8_buf, 1);  // an all-gather key
  const TeOptions pipe = Key(*b, "proj_fprop").options;
  EXPECT_EQ(pipe.method, TeMethod::kPipeline);
  EXPECT_EQ(pipe.num_sm, 16);
  EXPECT_EQ(pipe.cga_size, 2);
  EXPECT_EQ(pipe.set_sm_margin, 1);
  EXPECT_EQ(pipe.num_splits, 4);
  EXPECT_EQ(pipe.is_reduce_scatter, 1);
  EXPECT_EQ(pipe.fp8_buf, 0);
  for (const char* k : {"qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad"}) {
    EXPECT_EQ(Key(*b, k).options.method, TeMethod::kBulk) << k;
    EXPECT_EQ(Key(*b, k).options.set_sm_margin, 1) << k;
  }
  EXPECT_EQ(Key(*b, "qkv_dgrad").options.is_reduce_scatter, 0);  // TE's bulk all-gather
  EXPECT_EQ(Key(*b, "qkv_wgrad").options.is_reduce_scatter, 1);
  for (const char* k : {"proj_wgrad", "fc2_wgrad"}) EXPECT_EQ(Key(*b, k).options.method, TeMethod::kExternal) << k;
  // As Braid configs.
  EXPECT_EQ(Key(*b, "qkv_fprop").config.algorithm, Algorithm::kRing);
  EXPECT_EQ(Key(*b, "qkv_fprop").config.comm_engine, CommEngine::kCopyEngine);
  EXPECT_EQ(Key(*b, "qkv_fprop").config.comm_sms, 0);  // num_sm 1 changes nothing there
  EXPECT_EQ(Key(*b, "proj_fprop").config.Describe(), "chunked chunks=4 streams=1 comm_sms=16 sm_margin");
  EXPECT_EQ(Key(*b, "qkv_dgrad").config.Describe(), "bulk chunks=1 streams=1 comm_sms=16 sm_margin");
  EXPECT_EQ(Key(*b, "fc2_wgrad").config.algorithm, Algorithm::kExternal);
}

TEST(TeUbCfgs, KeysTheFileLeavesOutKeepTesDefaults) {
  auto b =
      Resolve("proj_fprop: {method: pipeline, num_sm: 24, num_splits: 8, set_sm_margin: 0}\n", Block(Phase::kTrain));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(Key(*b, "proj_fprop").given);
  EXPECT_EQ(Key(*b, "proj_fprop").config.Describe(), "chunked chunks=8 streams=1 comm_sms=24");
  EXPECT_EQ(Key(*b, "proj_fprop").options.cga_size, 2);  // TE's default for a pipeline key
  EXPECT_FALSE(Key(*b, "fc2_fprop").given);
  EXPECT_EQ(Key(*b, "fc2_fprop").config.Describe(), "chunked chunks=4 streams=1 comm_sms=16 sm_margin");
}

// A column dgrad given a non-bulk method reduce-scatters (initialize_ub moves
// it between its lists), its wgrad runs without overlap, and the file may not
// name that wgrad.
TEST(TeUbCfgs, ANonBulkColumnDgradReduceScattersAndItsWgradRunsAlone) {
  auto b =
      Resolve("qkv_dgrad: {method: ring_exchange}\nfc1_dgrad: {method: pipeline, num_sm: 8}\n", Block(Phase::kTrain));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Key(*b, "qkv_dgrad").options.is_reduce_scatter, 1);
  EXPECT_EQ(Key(*b, "qkv_dgrad").options.num_sm, 1);  // ring_exchange's default now
  EXPECT_EQ(Key(*b, "qkv_dgrad").config.algorithm, Algorithm::kDirect);
  EXPECT_EQ(Key(*b, "fc1_dgrad").config.Describe(), "chunked chunks=4 streams=1 comm_sms=8 sm_margin");
  for (const char* w : {"qkv_wgrad", "fc1_wgrad"}) {
    EXPECT_FALSE(Key(*b, w).overlapped) << w;
    EXPECT_EQ(Key(*b, w).config.algorithm, Algorithm::kSerial) << w;
  }
  ExpectRefused("qkv_dgrad: {method: ring_exchange}\nqkv_wgrad: {method: bulk}\n",
                {"qkv_wgrad", "qkv_dgrad uses ring_exchange", "drop the key"});
}

TEST(TeUbCfgs, BulkHasTwoBudgets) {
  auto b = Resolve(
      "qkv_dgrad: {method: bulk, num_sm: 4, set_sm_margin: 0}\n"
      "qkv_wgrad: {method: bulk, num_sm: 24, set_sm_margin: 0}\n",
      Block(Phase::kTrain));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Key(*b, "qkv_dgrad").config.Describe(), "bulk chunks=1 streams=1 comm_sms=4");
  EXPECT_EQ(Key(*b, "qkv_wgrad").config.Describe(), "bulk chunks=1 streams=1 comm_sms=24");
  // The plan charges each collective the budget of the GEMM it runs beside.
  auto plan = BuildLayerPlan(WithTeConfigs(Block(Phase::kTrain), *b), OverlapConfig{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (const PlanOp& op : plan->ops) {
    if (op.name == "qkv.dgrad") {
      EXPECT_EQ(op.knobs.comm_sms, 24);  // its reduce-scatter, beside the wgrad GEMM
    }
    if (op.name == "qkv.wgrad") {
      EXPECT_EQ(op.knobs.comm_sms, 4);  // its all-gather, beside the dgrad GEMM
    }
  }
}

TEST(TeUbCfgs, OptionsTheSimDoesNotFollowAreKeptWithANote) {
  auto b = Resolve(
      "qkv_fprop: {method: ring_exchange, aggregate: 1, cga_size: 4, num_splits: 3}\n"
      "proj_fprop: {method: pipeline, pipeline_rs_overlap_first_gemm: true, use_ce: 0}\n",
      Block(Phase::kPrefill));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_THAT(Key(*b, "qkv_fprop").notes,
              ElementsAre(HasSubstr("cga_size 4: kept"), HasSubstr("aggregate 1: kept"),
                          HasSubstr("num_splits 3: ignored, as TE's ring_exchange takes one step per rank")));
  EXPECT_THAT(Key(*b, "proj_fprop").notes,
              ElementsAre(HasSubstr("pipeline_rs_overlap_first_gemm 1: kept"), HasSubstr("use_ce 0: ignored")));
  EXPECT_EQ(Key(*b, "qkv_fprop").options.aggregate, 1);
}

TEST(TeUbCfgs, PrioritiesAreCudasOrder) {
  auto b = Resolve(
      "qkv_fprop: {comm_priority: -1, gemm_priority: 0}\nfc1_fprop: {comm_priority: 0, gemm_priority: 0}\n"
      "proj_fprop: {comm_priority: 0, gemm_priority: -1}\n",
      Block(Phase::kPrefill));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(Key(*b, "qkv_fprop").config.comm_high_priority);
  EXPECT_FALSE(Key(*b, "fc1_fprop").config.comm_high_priority);
  EXPECT_FALSE(Key(*b, "proj_fprop").config.comm_high_priority);
  EXPECT_THAT(Key(*b, "proj_fprop").notes, ElementsAre(HasSubstr("modelled as equal priorities")));
}

TEST(TeUbCfgs, APrefillChecksTheBackwardKeysButRunsTheFourFpropOnes) {
  auto b =
      Resolve("qkv_dgrad: {method: bulk, num_sm: 2}\nproj_fprop: {method: ring_exchange}\n", Block(Phase::kPrefill));
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b->keys.size(), 4u);
  EXPECT_EQ(Key(*b, "proj_fprop").config.algorithm, Algorithm::kDirect);
  EXPECT_THAT(b->notes, ::testing::Contains(HasSubstr("qkv_dgrad: checked, not run")));
  ExpectRefused("qkv_dgrad: {method: pipeline, num_sm: 0}\n", {"qkv_dgrad", "num_sm 0"}, Block(Phase::kPrefill));
}

TEST(TeUbCfgs, FlagsTakeTrueFalseZeroAndOne) {
  for (const char* v : {"1", "true", "True"}) {
    auto b = Resolve(std::string("proj_fprop: {set_sm_margin: ") + v + "}\n", Block(Phase::kPrefill));
    ASSERT_TRUE(b.ok()) << v << ": " << b.status().message();
    EXPECT_TRUE(Key(*b, "proj_fprop").config.sm_margin) << v;
  }
  ExpectRefused("proj_fprop: {set_sm_margin: 2}\n", {"ub.yaml", "proj_fprop", "set_sm_margin", "true, false, 0 or 1"});
  ExpectRefused("proj_fprop: {num_sm: eight}\n", {"proj_fprop", "num_sm", "not an integer"});
}

// The bad inputs, each one line naming the key and the option.
TEST(TeUbCfgs, BadFilesAreOneLineNamingKeyAndOption) {
  ExpectRefused("qkv_fprop: [unclosed\n", {"ub.yaml", "not YAML"});
  ExpectRefused("- a\n- b\n", {"not a mapping of TE's GEMM keys"});
  ExpectRefused("", {"empty"});
  ExpectRefused("qkv_fpro: {method: ring_exchange}\n", {"'qkv_fpro' is not one of TE's ub_cfgs keys", "qkv_fprop"});
  ExpectRefused("qkv_fprop: {num_sms: 2}\n", {"qkv_fprop", "num_sms", "not an option TE's ub_cfgs has"});
  ExpectRefused("qkv_fprop: 3\n", {"qkv_fprop is not a mapping of options"});
  ExpectRefused("qkv_fprop: {method: pipeline}\n", {"qkv_fprop", "pipeline", "not supported for AllGather"});
  ExpectRefused("proj_dgrad: {method: pipeline}\n", {"proj_dgrad", "pipeline", "AllGather"});
  ExpectRefused("qkv_fprop: {method: bulk}\n", {"qkv_fprop", "bulk", "column layer's dgrad and wgrad"});
  ExpectRefused("proj_dgrad: {method: bulk}\n", {"proj_dgrad", "bulk"});
  ExpectRefused("fc1_fprop: {method: external}\n", {"fc1_fprop", "external is for proj_wgrad and fc2_wgrad only"});
  ExpectRefused("fc2_wgrad: {method: ring_exchange}\n", {"fc2_wgrad", "TE takes only external"});
  ExpectRefused("qkv_wgrad: {method: ring_exchange}\n", {"qkv_wgrad", "only in bulk"});
  ExpectRefused("qkv_fprop: {method: rings}\n", {"qkv_fprop", "method", "'rings' is not a TE overlap method"});
  ExpectRefused("proj_fprop: {num_sm: 0}\n", {"proj_fprop", "num_sm 0", "outside 1..32"});
  ExpectRefused("proj_fprop: {num_sm: -3}\n", {"proj_fprop", "num_sm -3"});
  ExpectRefused("proj_fprop: {num_sm: 33}\n", {"proj_fprop", "num_sm 33", "NVTE_MAX_SMS"});
  ExpectRefused("proj_fprop: {num_splits: 5}\n", {"proj_fprop", "num_splits 5", "does not divide"});
  ExpectRefused("proj_fprop: {num_splits: 0}\n", {"proj_fprop", "num_splits 0"});
  ExpectRefused("proj_fprop: {atomic_gemm: 1}\n", {"proj_fprop", "atomic_gemm 1", "CUDA 13"});
  ExpectRefused("proj_fprop: {cga_size: 9}\n", {"proj_fprop", "cga_size 9"});
  ExpectRefused("qkv_fprop: {is_reduce_scatter: 1}\n", {"qkv_fprop", "is_reduce_scatter 1 contradicts"});
  ExpectRefused("qkv_fprop: {method: ring_exchange}\nqkv_fprop: {method: ring_exchange}\n", {"qkv_fprop"});
  ExpectRefused("a: &x {method: bulk}\nqkv_dgrad: *x\n", {"anchors and aliases"});
  ExpectRefused(std::string(40, '[') + "\n", {"nested deeper"});
  ExpectRefused(std::string(40, ' ') + "x: 1\n", {"indented deeper"});
  // A GPU with fewer SMs than a budget leaves the GEMM none.
  auto small = Resolve("proj_fprop: {num_sm: 24}\n", Block(Phase::kPrefill), /*sms=*/20);
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(small.status().message(), AllOf(HasSubstr("num_sm 24"), HasSubstr("20")));
  // FP8 partial sums through a pipeline or direct plan are not modelled.
  ExpectRefused("proj_fprop: {fp8_buf: 1}\n", {"proj_fprop", "fp8_buf 1", "set fp8_buf 0"},
                Block(Phase::kPrefill, 8, 4096, DType::kFp8E4m3));
  // In bf16 the same is only a note.
  auto bf16 = Resolve("proj_fprop: {fp8_buf: 1}\n", Block(Phase::kPrefill));
  ASSERT_TRUE(bf16.ok());
  EXPECT_THAT(Key(*bf16, "proj_fprop").notes, ElementsAre(HasSubstr("fp8_buf 1: not an FP8 run")));
}

// Every key and method the reader accepts, TE's own rules accept too, and
// the other way round (the checker in tests/presets/te_ub_rules.h reads TE's
// initialize_ub independently of this reader): one key set to each method
// at a time, and each column dgrad's method beside a wgrad entry.
TEST(TeUbCfgs, AcceptsWhatTesRulesAcceptAndNothingElse) {
  const LayerWorkload lw = Block(Phase::kTrain);
  int agreed = 0;
  for (const TeKey& key : TeKeys()) {
    for (const char* method : {"ring_exchange", "pipeline", "bulk", "external"}) {
      for (bool with_wgrad : {false, true}) {
        // The checker reads every option TE's YAMLs write; the reader fills
        // TE's defaults for what the file leaves out.
        auto fields = [](const char* m) {
          return testing_te::UbFields{{"method", m},          {"num_sm", "1"},     {"cga_size", "1"},
                                      {"set_sm_margin", "0"}, {"num_splits", "8"}, {"atomic_gemm", "0"},
                                      {"use_ce", "1"}};
        };
        std::string yaml = std::string(key.name) + ":\n  method: " + method + "\n";
        testing_te::UbCfgs cfgs = {{std::string(key.name), fields(method)}};
        if (with_wgrad) {
          if (!(key.column && key.pass == Pass::kDgrad)) continue;
          const std::string wgrad = std::string(key.name.substr(0, key.name.size() - 5)) + "wgrad";
          yaml += wgrad + ":\n  method: bulk\n";
          cfgs[wgrad] = fields("bulk");
        }
        const bool te_takes = testing_te::TeRuleViolations(cfgs).empty();
        const auto ours = Resolve(yaml, lw);
        EXPECT_EQ(ours.ok(), te_takes) << yaml << (ours.ok() ? "" : ours.status().message());
        ++agreed;
      }
    }
  }
  EXPECT_EQ(agreed, 12 * 4 + 2 * 4);
}

// The mapping both ways: every TE option set the reader resolves runs back
// to the same options, and every config TE can express maps to options that
// map back to it.
TEST(TeUbCfgs, TeOptionsAndBraidConfigsRoundTrip) {
  const LayerWorkload lw = Block(Phase::kTrain);
  int checked = 0;
  const char* bulk_and_priorities =
      "fc1_dgrad: {num_sm: 2, set_sm_margin: 0}\nfc1_wgrad: {num_sm: 32}\n"
      "proj_fprop: {comm_priority: 0, gemm_priority: 0}\n";
  for (const char* yaml :
       {"", "proj_fprop: {method: ring_exchange, use_ce: 0, num_sm: 8, set_sm_margin: 1}\n",
        "qkv_fprop: {use_ce: 0, num_sm: 4}\nfc1_fprop: {set_sm_margin: 1, num_sm: 2}\n",
        "qkv_dgrad: {method: pipeline, num_sm: 24, num_splits: 2, set_sm_margin: 0}\n", bulk_and_priorities}) {
    auto b = std::string(yaml).empty() ? ResolveTeUbCfgs(nullptr, lw, kH100Sms) : Resolve(yaml, lw);
    ASSERT_TRUE(b.ok()) << yaml << b.status().message();
    for (const TeKeyConfig& k : b->keys) {
      if (!k.overlapped) continue;
      const LayerOp* op = nullptr;
      for (const LayerOp& o : lw.ops) {
        if (TeKeyOfOp(o.name) == k.key) op = &o;
      }
      ASSERT_NE(op, nullptr);
      auto back = TeOptionsOf(k.config, *k.key, op->gemm, lw.tp);
      ASSERT_TRUE(back.ok()) << k.key->name << ": " << back.status().message();
      EXPECT_EQ(TeConfigOf(*back, op->gemm), k.config) << k.key->name;
      EXPECT_EQ(back->method, k.options.method) << k.key->name;
      if (CommSmsTakeEffect(k.config, op->gemm.op)) {
        EXPECT_EQ(back->num_sm, k.options.num_sm) << k.key->name;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 40);
}

TEST(TeUbCfgs, WhatTeCannotExpressIsOneLineNamingIt) {
  const LayerWorkload lw = Block(Phase::kTrain);
  const Workload& qkv = lw.ops[0].gemm;
  OverlapConfig c;
  c.algorithm = Algorithm::kDirect;
  auto direct = TeOptionsOf(c, *FindTeKey("qkv_fprop"), qkv, 8);
  ASSERT_FALSE(direct.ok());
  EXPECT_THAT(direct.status().message(),
              AllOf(HasSubstr("qkv_fprop: direct"), HasSubstr("passes blocks around a ring")));
  c.algorithm = Algorithm::kRing;
  c.comm_sms = 1;
  c.comm_lanes = 2;
  EXPECT_THAT(TeOptionsOf(c, *FindTeKey("qkv_fprop"), qkv, 8).status().message(), HasSubstr("one comm stream"));
  c.comm_lanes = 1;
  c.chunks = 2;
  EXPECT_THAT(TeOptionsOf(c, *FindTeKey("qkv_fprop"), qkv, 8).status().message(), HasSubstr("no sub-chunks"));
  OverlapConfig fused;
  fused.algorithm = Algorithm::kFused;
  EXPECT_THAT(TeOptionsOf(fused, *FindTeKey("qkv_fprop"), qkv, 8).status().message(),
              HasSubstr("fused is not a method TE offers"));
  OverlapConfig pipe;
  pipe.algorithm = Algorithm::kChunked;
  pipe.chunks = 4;
  pipe.comm_sms = 0;  // the backend's default: TE needs a count
  EXPECT_THAT(TeOptionsOf(pipe, *FindTeKey("proj_fprop"), lw.ops[2].gemm, 8).status().message(),
              HasSubstr("num_sm is a count of 1 to 32"));
}

// Ulysses (replicated weights, all-to-alls) is no TE method: TeOptionsOf
// refuses it for every key, and an export refuses it even with `nearest`,
// as TE has nothing near it.
TEST(TeUbCfgs, UlyssesAllToAllsAreNoTeMethodNotEvenTheNearest) {
  const LayerWorkload lw = Block(Phase::kPrefill);
  for (Algorithm a : {Algorithm::kA2a, Algorithm::kA2aDirect}) {
    OverlapConfig c;
    c.algorithm = a;
    for (const char* key : {"qkv_fprop", "proj_fprop"}) {
      const Workload& w = lw.ops[std::string(key) == "qkv_fprop" ? 0 : 2].gemm;
      auto o = TeOptionsOf(c, *FindTeKey(key), w, 8);
      ASSERT_FALSE(o.ok()) << key;
      EXPECT_THAT(o.status().message(), AllOf(HasSubstr(std::string(key) + ": " + std::string(AlgorithmName(a))),
                                              HasSubstr("Ulysses"), HasSubstr("no TE method")));
    }
    const PresetFile f = testing_te::LayerPresets(
        lw, [&](const LayerOp& op) { return op.name == "qkv" ? a : testing_te::TeLikeMethod(op); });
    for (bool nearest : {false, true}) {
      TeExportInfo info;
      info.nearest = nearest;
      auto cfgs = BuildTeUbCfgs(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", info);
      ASSERT_FALSE(cfgs.ok()) << "nearest " << nearest;
      EXPECT_THAT(cfgs.status().message(), AllOf(HasSubstr("qkv_fprop"), HasSubstr("Ulysses"))) << nearest;
    }
  }
}

}  // namespace
}  // namespace braid
