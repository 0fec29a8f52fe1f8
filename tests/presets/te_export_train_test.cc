// Unit tests of the train export (presets/include/braid/te_export.h): the
// twelve keys of a training step, each GEMM looked up with its pass, each
// wgrad fitted to its dgrad as TE pairs them, and every export checked with
// TE's rules (te_ub_rules.h) from its YAML text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/presets.h"
#include "braid/te_export.h"
#include "te_test_presets.h"
#include "te_ub_rules.h"

namespace braid {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_te::LayerPresets;
using testing_te::ParseUbCfgs;
using testing_te::TeLikeMethod;
using testing_te::TeRuleViolations;

LayerWorkload Llama70b(Phase phase) {
  auto model = LoadModel("llama3-70b");
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto lw = MakeLayerWorkload(*model, 4096, 1, phase, 8, DType::kBf16, true);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return *lw;
}

// `file` with the preset of layer op `name` set to `a` (with TE's knobs for
// it where TE has the method, as testing_te::TePreset gives them).
PresetFile With(PresetFile file, const std::string& name, Algorithm a) {
  for (Preset& p : file.presets) {
    if (p.key.layer == "llama3-70b/" + name) {
      p.config = testing_te::TePreset(p.key.workload, p.key.layer, a, a == Algorithm::kChunked ? 4 : 1).config;
    }
  }
  return file;
}

TeExportInfo Info(bool nearest = false) {
  TeExportInfo info;
  info.braid_version = "9.8.7";
  info.source = "train.toml";
  info.default_comm_sms = 24;
  info.default_comm_sms_origin = "test";
  info.nearest = nearest;
  return info;
}

Result<TeUbCfgs> Build(const PresetFile& f, const LayerWorkload& lw, bool nearest = false) {
  return BuildTeUbCfgs(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", Info(nearest));
}

// The export's YAML, after checking it against TE's rules.
std::string AcceptedYaml(const PresetFile& f, const LayerWorkload& lw, bool nearest = false) {
  auto yaml = ExportTeYaml(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", Info(nearest));
  EXPECT_TRUE(yaml.ok()) << yaml.status().message();
  if (!yaml.ok()) return "";
  EXPECT_THAT(TeRuleViolations(ParseUbCfgs(*yaml)), IsEmpty()) << *yaml;
  return *yaml;
}

const TeUbCfg& Entry(const TeUbCfgs& cfgs, const std::string& key) {
  for (const TeUbCfg& c : cfgs.layers) {
    if (c.key == key) return c;
  }
  ADD_FAILURE() << "no entry " << key;
  return cfgs.layers.front();
}

std::vector<std::string> WrittenKeys(const TeUbCfgs& cfgs) {
  std::vector<std::string> keys;
  for (const TeUbCfg& c : cfgs.layers) {
    if (!c.omitted) keys.push_back(c.key);
  }
  return keys;
}

TEST(TeExportTrain, TwelveKeysInTheBlocksOrderEachFromItsPass) {
  const LayerWorkload lw = Llama70b(Phase::kTrain);
  const PresetFile f = LayerPresets(lw, TeLikeMethod);
  ASSERT_EQ(f.presets.size(), 12u);
  auto cfgs = Build(f, lw);
  ASSERT_TRUE(cfgs.ok()) << cfgs.status().message();
  EXPECT_THAT(WrittenKeys(*cfgs),
              ElementsAre("qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "fc2_dgrad", "fc2_wgrad", "fc1_dgrad",
                          "fc1_wgrad", "proj_dgrad", "proj_wgrad", "qkv_dgrad", "qkv_wgrad"));
  for (const TeUbCfg& c : cfgs->layers) {
    EXPECT_EQ(c.match, PresetMatch::kExact) << c.key;
    ASSERT_GE(c.comments.size(), 2u);
    EXPECT_THAT(c.comments[1], HasSubstr("preset llama3-70b/")) << c.key;
  }
  // Each key's config is its own pass's preset, not the layer's fprop one.
  EXPECT_THAT(Entry(*cfgs, "qkv_dgrad").comments[1], HasSubstr("llama3-70b/qkv.dgrad"));
  EXPECT_THAT(Entry(*cfgs, "proj_wgrad").comments[0], HasSubstr("local GEMM"));
  EXPECT_EQ(Entry(*cfgs, "qkv_fprop").te.method, TeMethod::kRingExchange);
  EXPECT_EQ(Entry(*cfgs, "proj_fprop").te.method, TeMethod::kPipeline);
  for (const char* key : {"qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad"}) {
    EXPECT_EQ(Entry(*cfgs, key).te.method, TeMethod::kBulk) << key;
  }
  for (const char* key : {"proj_dgrad", "fc2_dgrad"}) EXPECT_EQ(Entry(*cfgs, key).te.method, TeMethod::kRingExchange);
  for (const char* key : {"proj_wgrad", "fc2_wgrad"}) EXPECT_EQ(Entry(*cfgs, key).te.method, TeMethod::kExternal);

  const std::string yaml = AcceptedYaml(f, lw);
  EXPECT_EQ(ParseUbCfgs(yaml).size(), 12u);
  EXPECT_THAT(yaml, AllOf(HasSubstr(", train, sequence parallel"), Not(HasSubstr("(omitted)"))));
}

TEST(TeExportTrain, ANonBulkColumnDgradDropsItsWgrad) {
  const LayerWorkload lw = Llama70b(Phase::kTrain);
  // As the tuner leaves them: a reduce-scatter dgrad, its wgrad serial.
  PresetFile f = With(LayerPresets(lw, TeLikeMethod), "qkv.dgrad", Algorithm::kDirect);
  f = With(f, "fc1.dgrad", Algorithm::kChunked);  // a pipelined reduce-scatter
  f = With(f, "qkv.wgrad", Algorithm::kSerial);
  f = With(f, "fc1.wgrad", Algorithm::kSerial);
  auto cfgs = Build(f, lw);
  ASSERT_TRUE(cfgs.ok()) << cfgs.status().message();
  EXPECT_EQ(WrittenKeys(*cfgs).size(), 10u);
  EXPECT_EQ(Entry(*cfgs, "qkv_dgrad").te.method, TeMethod::kRingExchange);
  EXPECT_EQ(Entry(*cfgs, "fc1_dgrad").te.method, TeMethod::kPipeline);
  const TeUbCfg& qkv_wgrad = Entry(*cfgs, "qkv_wgrad");
  EXPECT_TRUE(qkv_wgrad.omitted);
  EXPECT_THAT(qkv_wgrad.te.comments, ElementsAre(AllOf(HasSubstr("omitted: qkv_dgrad is ring_exchange, not bulk"),
                                                       HasSubstr("without overlap"))));
  EXPECT_TRUE(Entry(*cfgs, "fc1_wgrad").omitted);

  const std::string yaml = AcceptedYaml(f, lw);
  EXPECT_EQ(ParseUbCfgs(yaml).count("qkv_wgrad"), 0u);
  EXPECT_THAT(yaml, AllOf(HasSubstr("# qkv_wgrad: (omitted)\n"), HasSubstr("# fc1_wgrad: (omitted)\n"),
                          HasSubstr("# omitted: fc1_dgrad is pipeline, not bulk")));
}

TEST(TeExportTrain, ASerialRowWgradIsLeftToTesDefault) {
  const LayerWorkload lw = Llama70b(Phase::kTrain);
  // A chunked row dgrad (written as ring_exchange, TE's only all-gather
  // method) leaves its wgrad serial, as Braid's train planner does: not
  // what TE runs, so refused unless nearest.
  PresetFile f = With(LayerPresets(lw, TeLikeMethod), "fc2.dgrad", Algorithm::kChunked);
  f = With(f, "fc2.wgrad", Algorithm::kSerial);
  auto exact = Build(f, lw);
  ASSERT_FALSE(exact.ok());
  EXPECT_THAT(exact.status().message(), AllOf(HasSubstr("fc2_dgrad: chunked"), HasSubstr("pipeline method is for "
                                                                                         "reduce-scatters only")));
  auto cfgs = Build(f, lw, /*nearest=*/true);
  ASSERT_TRUE(cfgs.ok()) << cfgs.status().message();
  EXPECT_TRUE(Entry(*cfgs, "fc2_dgrad").nearest);
  EXPECT_EQ(Entry(*cfgs, "fc2_dgrad").te.method, TeMethod::kRingExchange);
  const TeUbCfg& fc2_wgrad = Entry(*cfgs, "fc2_wgrad");
  EXPECT_TRUE(fc2_wgrad.omitted);
  EXPECT_THAT(fc2_wgrad.te.comments,
              ElementsAre(AllOf(HasSubstr("omitted: braid config serial"), HasSubstr("TE takes only external"))));
  EXPECT_FALSE(Entry(*cfgs, "proj_wgrad").omitted);
  EXPECT_THAT(AcceptedYaml(f, lw, /*nearest=*/true), HasSubstr("# fc2_wgrad: (omitted)\n"));
}

TEST(TeExportTrain, AColumnWgradBesideABulkDgradIsBulk) {
  const LayerWorkload lw = Llama70b(Phase::kTrain);
  PresetFile f = With(LayerPresets(lw, TeLikeMethod), "qkv.wgrad", Algorithm::kRing);
  auto exact = Build(f, lw);
  ASSERT_FALSE(exact.ok());
  EXPECT_THAT(exact.status().message(),
              HasSubstr("TE overlaps a column layer's dgrad and wgrad together or not at all"));
  auto cfgs = Build(f, lw, /*nearest=*/true);
  ASSERT_TRUE(cfgs.ok()) << cfgs.status().message();
  const TeUbCfg& qkv_wgrad = Entry(*cfgs, "qkv_wgrad");
  EXPECT_FALSE(qkv_wgrad.omitted);
  EXPECT_EQ(qkv_wgrad.te.method, TeMethod::kBulk);
  EXPECT_THAT(qkv_wgrad.te.comments, Contains(AllOf(HasSubstr("not expressible: ring beside a bulk qkv_dgrad"),
                                                    HasSubstr("written as bulk"))));
  AcceptedYaml(f, lw, /*nearest=*/true);
}

// A file keys presets by op and pass, not by layer: an ag_gemm wgrad preset
// may be bulk or external whichever layer it was tuned for.
TEST(TeExportTrain, BulkOrExternalWhereTeTakesNeitherIsWrittenAsSerial) {
  const LayerWorkload lw = Llama70b(Phase::kTrain);
  PresetFile f = With(LayerPresets(lw, TeLikeMethod), "out_proj.wgrad", Algorithm::kBulk);
  f = With(f, "qkv.wgrad", Algorithm::kExternal);
  ASSERT_FALSE(Build(f, lw).ok());
  auto cfgs = Build(f, lw, /*nearest=*/true);
  ASSERT_TRUE(cfgs.ok()) << cfgs.status().message();
  EXPECT_TRUE(Entry(*cfgs, "proj_wgrad").omitted);
  EXPECT_THAT(Entry(*cfgs, "proj_wgrad").te.comments, ElementsAre(HasSubstr("braid config bulk")));
  const TeUbCfg& qkv_wgrad = Entry(*cfgs, "qkv_wgrad");
  EXPECT_EQ(qkv_wgrad.te.method, TeMethod::kBulk);
  EXPECT_THAT(qkv_wgrad.te.comments, Contains(HasSubstr("not expressible: external beside a bulk qkv_dgrad")));
  AcceptedYaml(f, lw, /*nearest=*/true);
}

TEST(TeExportTrain, AGemmWithNoPresetOfItsPassIsNotFoundNamingItsKey) {
  const LayerWorkload train = Llama70b(Phase::kTrain);
  // What the shipped files hold today: the forward only.
  auto forward_only = Build(LayerPresets(Llama70b(Phase::kPrefill), TeLikeMethod), train);
  ASSERT_FALSE(forward_only.ok());
  EXPECT_EQ(forward_only.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(forward_only.status().message(), AllOf(HasSubstr("no preset for fc2.dgrad (fc2_dgrad: ag_gemm"),
                                                     HasSubstr("pass dgrad"), HasSubstr("train.toml")));

  // No gemm_rs dgrad at all: no nearest match either.
  PresetFile f = LayerPresets(train, TeLikeMethod);
  std::erase_if(f.presets,
                [](const Preset& p) { return p.key.pass == Pass::kDgrad && p.key.workload.op == Op::kGemmRs; });
  auto no_rs_dgrad = Build(f, train);
  ASSERT_FALSE(no_rs_dgrad.ok());
  EXPECT_THAT(no_rs_dgrad.status().message(), HasSubstr("no preset for fc1.dgrad (fc1_dgrad: gemm_rs"));
}

TEST(TeExportTrain, TheForwardIgnoresBackwardPresets) {
  const LayerWorkload prefill = Llama70b(Phase::kPrefill);
  const PresetFile forward = LayerPresets(prefill, TeLikeMethod);
  PresetFile both = forward;
  for (const Preset& p :
       LayerPresets(Llama70b(Phase::kTrain), [](const LayerOp&) { return Algorithm::kSerial; }).presets) {
    if (p.key.pass != Pass::kFprop) both.presets.push_back(p);
  }
  auto alone = ExportTeYaml(PresetTable::FromFile(forward), prefill, "h100-sxm", "h100-sxm", Info());
  auto beside = ExportTeYaml(PresetTable::FromFile(both), prefill, "h100-sxm", "h100-sxm", Info());
  ASSERT_TRUE(alone.ok() && beside.ok());
  EXPECT_EQ(*alone, *beside);
  EXPECT_THAT(*alone, AllOf(HasSubstr(", prefill, "), Not(HasSubstr("_dgrad")), Not(HasSubstr("_wgrad"))));
}

// The checker reads the text: an export edited to break a rule fails it.
TEST(TeExportTrain, TheRuleCheckerFailsAnEditedExport) {
  const LayerWorkload lw = Llama70b(Phase::kTrain);
  const std::string yaml = AcceptedYaml(LayerPresets(lw, TeLikeMethod), lw);
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = yaml;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return TeRuleViolations(ParseUbCfgs(text));
  };
  EXPECT_THAT(edited("proj_dgrad:\n  method: ring_exchange", "proj_dgrad:\n  method: pipeline"),
              ElementsAre("proj_dgrad: pipeline on an all-gather GEMM",
                          HasSubstr("proj_wgrad: external beside proj_dgrad on pipeline")));
  EXPECT_THAT(edited("qkv_dgrad:\n  method: bulk", "qkv_dgrad:\n  method: ring_exchange"),
              ElementsAre(HasSubstr("qkv_wgrad: an entry beside qkv_dgrad on ring_exchange")));
}

}  // namespace
}  // namespace braid
