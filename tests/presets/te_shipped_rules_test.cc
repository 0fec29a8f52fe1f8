// Every shipped preset file's TransformerEngine export, for every model block
// and TP degree it holds, checked against what TE's initialize_ub accepts
// (te_ub_rules.h; the ub_cfgs section of docs/cuda.md, from TE's
// transformer_engine/pytorch/module/base.py): the forward (prefill) of every
// file, and the training step of every file that holds train presets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "braid/comm_sms_effect.h"
#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/presets.h"
#include "braid/te_export.h"
#include "te_ub_rules.h"

namespace braid {
namespace {

using testing_te::ParseUbCfgs;
using testing_te::TeRuleViolations;

constexpr const char* kModels[] = {"llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b"};
constexpr int64_t kSeqs[] = {4096, 8192};

// The shipped presets tuned for TransformerEngine (`tune --runtime te`):
// their export runs exactly what was tuned. (presets/tuned/*.toml, tuned
// for Braid's own runtime, hold plans TE cannot express.)
std::string ShippedPath(const std::string& topology) {
  return std::string(BRAID_SOURCE_DIR) + "/presets/tuned/te/" + topology + ".toml";
}

// Every preset file in presets/tuned/te/, by its name: the topology (and
// GPU) its presets are for. A file added there is checked without editing this.
std::vector<std::string> ShippedTopologies() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(BRAID_SOURCE_DIR) + "/presets/tuned/te")) {
    if (e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool HoldsTrainPresets(const PresetTable& table) {
  for (const Preset& p : table.presets()) {
    if (p.key.pass != Pass::kFprop) return true;
  }
  return false;
}

// The keys a train export always writes: every fprop and every dgrad. The
// wgrads are written where TE takes them (te_export.h).
void ExpectTrainKeys(const testing_te::UbCfgs& cfgs, const std::string& where) {
  for (const char* layer : {"qkv", "proj", "fc1", "fc2"}) {
    for (const char* pass : {"_fprop", "_dgrad"}) {
      EXPECT_EQ(cfgs.count(std::string(layer) + pass), 1u) << where << ": no " << layer << pass;
    }
  }
  for (const char* layer : {"qkv", "fc1"}) {
    const std::string dgrad = std::string(layer) + "_dgrad", wgrad = std::string(layer) + "_wgrad";
    if (cfgs.count(dgrad) && cfgs.at(dgrad).at("method") == "bulk") {
      EXPECT_EQ(cfgs.count(wgrad), 1u) << where << ": a bulk " << dgrad << " without its wgrad";
    }
  }
}

struct ExportCount {
  int exports = 0, entries = 0, from_fused = 0;
};

// Exports every model block, TP degree and sequence length of one file in
// `phase` and checks each against TE's rules.
void CheckEveryExport(const std::string& topology, Phase phase, ExportCount& n, DType dtype = DType::kBf16) {
  const std::string path = ShippedPath(topology);
  auto table = PresetTable::Load(path);
  ASSERT_TRUE(table.ok()) << table.status().message();
  const std::vector<int> tps = PresetTps(*table, topology, topology);
  ASSERT_FALSE(tps.empty()) << path;
  for (const char* name : kModels) {
    auto model = LoadModel(name);
    ASSERT_TRUE(model.ok()) << model.status().message();
    for (int tp : tps) {
      for (int64_t seq : kSeqs) {
        auto lw = MakeLayerWorkload(*model, seq, 1, phase, tp, dtype, true);
        ASSERT_TRUE(lw.ok()) << lw.status().message();
        TeExportInfo info;
        info.braid_version = "test";
        info.source = path;
        info.default_comm_sms = 24;
        info.default_comm_sms_origin = "test";
        auto yaml = ExportTeYaml(*table, *lw, topology, topology, info);
        ASSERT_TRUE(yaml.ok()) << yaml.status().message();
        ++n.exports;
        const std::string where = topology + " " + name + " " + std::string(PhaseName(phase)) + " tp " +
                                  std::to_string(tp) + " seq " + std::to_string(seq);
        const auto cfgs = ParseUbCfgs(*yaml);
        if (phase == Phase::kTrain) {
          ExpectTrainKeys(cfgs, where);
        } else {
          EXPECT_EQ(cfgs.size(), 4u) << *yaml;
        }
        n.entries += int(cfgs.size());
        for (const std::string& why : TeRuleViolations(cfgs)) ADD_FAILURE() << where << " " << why;
        // Exact: nothing approximated.
        EXPECT_EQ(yaml->find("not expressible"), std::string::npos) << where;
        for (const auto& [key, fields] : cfgs) {
          // FP8 exports say what each userbuffer holds; bf16 ones stay as they were.
          EXPECT_EQ(fields.count("fp8_buf"), IsFp8(dtype) ? 1u : 0u) << where << " " << key;
        }
        for (size_t at = yaml->find("fused:"); at != std::string::npos; at = yaml->find("fused:", at + 1)) {
          ++n.from_fused;
        }
      }
    }
  }
}

TEST(TeShippedPresets, EveryExportIsAcceptedByTe) {
  ExportCount n;
  int expected_exports = 0;
  const std::vector<std::string> shipped = ShippedTopologies();
  ASSERT_THAT(shipped, ::testing::IsSupersetOf({"a100-sxm", "h100-sxm"}));
  for (const std::string& topology : shipped) {
    auto table = PresetTable::Load(ShippedPath(topology));
    ASSERT_TRUE(table.ok()) << table.status().message();
    expected_exports += 4 * 2 * int(PresetTps(*table, topology, topology).size());  // models x seqs x TPs
    CheckEveryExport(topology, Phase::kPrefill, n);
  }
  // Every file, every TP it holds (H100: 2, 4, 8; A100: 4, 8), four models,
  // two sequence lengths.
  EXPECT_EQ(n.exports, expected_exports);
  EXPECT_GE(n.exports, 2 * 4 * 2 * 2);
  EXPECT_EQ(n.entries, n.exports * 4);
  // Since the fused kernel was measured (presets/tuned/CHANGES.md, issue 23)
  // no shipped preset picks it; te_export_yaml_test.cc covers its export.
  EXPECT_EQ(n.from_fused, 0);
}

// The training step's twelve keys, for every shipped file that holds train
// presets (dgrad, wgrad). Until the tuner writes them none does, and the test
// says so rather than passing over nothing.
TEST(TeShippedPresets, EveryTrainExportIsAcceptedByTe) {
  ExportCount n;
  std::string without;
  for (const std::string& topology : ShippedTopologies()) {
    auto table = PresetTable::Load(ShippedPath(topology));
    ASSERT_TRUE(table.ok()) << table.status().message();
    if (!HoldsTrainPresets(*table)) {
      without += (without.empty() ? "" : ", ") + topology + ".toml";
      continue;
    }
    CheckEveryExport(topology, Phase::kTrain, n);
  }
  if (n.exports == 0) GTEST_SKIP() << "no shipped preset file holds train presets yet (" << without << ")";
  if (!without.empty()) std::printf("no train presets in %s: their train export is not checked\n", without.c_str());
  EXPECT_GE(n.entries, n.exports * 8);  // the fprop and dgrad keys at least
}

// FP8 training steps, for every shipped file that holds FP8 presets (all but
// A100's, which has no FP8).
TEST(TeShippedPresets, EveryFp8TrainExportIsAcceptedByTe) {
  ExportCount n;
  for (const std::string& topology : ShippedTopologies()) {
    auto table = PresetTable::Load(ShippedPath(topology));
    ASSERT_TRUE(table.ok()) << table.status().message();
    bool fp8 = false;
    for (const Preset& p : table->presets()) fp8 = fp8 || IsFp8(p.key.workload.dtype);
    if (topology == "a100-sxm") {
      EXPECT_FALSE(fp8);
      continue;
    }
    EXPECT_TRUE(fp8) << topology << ".toml ships no FP8 presets";
    CheckEveryExport(topology, Phase::kTrain, n, DType::kFp8E4m3);
  }
  EXPECT_GE(n.exports, 3 * 4 * 2 * 3);  // h100, h200, b200 x models x seqs x TPs
  EXPECT_GE(n.entries, n.exports * 8);
}

TEST(TeShippedPresets, TheRuleCheckerCatchesWhatTeRefuses) {
  const testing_te::UbFields good = {{"method", "pipeline"}, {"num_splits", "4"},  {"num_sm", "16"}, {"cga_size", "2"},
                                     {"set_sm_margin", "1"}, {"atomic_gemm", "0"}, {"use_ce", "0"}};
  using testing_te::TeEntryViolations;
  EXPECT_TRUE(TeEntryViolations("proj_fprop", good).empty());
  testing_te::UbFields atomic = good;
  atomic["atomic_gemm"] = "1";
  EXPECT_EQ(TeEntryViolations("proj_fprop", atomic).size(), 1u);
  EXPECT_EQ(TeEntryViolations("fc1_fprop", good).size(), 1u);  // pipeline on all-gather
  testing_te::UbFields wide = good;
  wide["num_sm"] = "48";
  EXPECT_EQ(TeEntryViolations("fc2_fprop", wide).size(), 1u);
}

// A shipped preset never carries an SM budget that changes nothing
// (`braid run --comm-sms` refuses one; the tuner generates none).
TEST(ShippedPresets, SetCommSmsOnlyWhereTheyTakeEffect) {
  int with_sms = 0;
  for (const char* file : {"tuned/h100-sxm.toml", "tuned/a100-sxm.toml", "examples/example.toml"}) {
    auto presets = LoadPresetFile(std::string(BRAID_SOURCE_DIR) + "/presets/" + file);
    ASSERT_TRUE(presets.ok()) << presets.status().message();
    for (const Preset& p : presets->presets) {
      if (p.config.comm_sms == 0) continue;
      ++with_sms;
      EXPECT_TRUE(CommSmsTakeEffect(p.config, p.key.workload.op))
          << file << ": " << OpName(p.key.workload.op) << " " << p.config.Describe();
    }
  }
  EXPECT_GT(with_sms, 50);  // 39 + 24 + 1 entries set one
}

}  // namespace
}  // namespace braid
