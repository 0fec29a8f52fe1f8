// Unit tests of the TransformerEngine ub_cfgs export (presets/include/braid/te_export.h):
// the YAML text of a whole layer — keys, fields, header and the comments that
// say what TE cannot express. te_export_map_test.cc checks the config mapping.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/presets.h"
#include "braid/te_export.h"
#include "te_test_presets.h"

namespace braid {
namespace te_export_yaml_test {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr int kTp = 8;
constexpr int kDefaultSms = 24;

// The YAML as a mapping of mappings, checked line by line: comments start at
// column 0 with '#', a key is "name:" at column 0, a field "  name: value"
// (two spaces, a lower-case name, a bare int or identifier). Comments are
// attached to the key they stand above.
struct Yaml {
  std::vector<std::string> keys;
  std::map<std::string, std::map<std::string, std::string>> fields;
  std::map<std::string, std::string> comments;  // key -> its comment lines, joined
  std::string header;                           // comments before the first blank line
  std::vector<std::string> errors;
};

bool Ident(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

Yaml ParseYaml(const std::string& text) {
  Yaml y;
  std::istringstream in(text);
  std::string line, pending, key;
  bool in_header = true;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string at = "line " + std::to_string(n) + ": '" + line + "'";
    if (line.empty()) {
      in_header = false;
      continue;
    }
    if (line[0] == '#') {
      (in_header ? y.header : pending) += line + "\n";
      continue;
    }
    if (line.back() == ':' && Ident(line.substr(0, line.size() - 1))) {
      key = line.substr(0, line.size() - 1);
      if (y.fields.count(key)) y.errors.push_back("duplicate key, " + at);
      y.keys.push_back(key);
      y.fields[key];
      y.comments[key] = pending;
      pending.clear();
      continue;
    }
    const size_t colon = line.find(": ");
    if (line.rfind("  ", 0) != 0 || line[2] == ' ' || colon == std::string::npos || key.empty() ||
        !Ident(line.substr(2, colon - 2)) || !Ident(line.substr(colon + 2))) {
      y.errors.push_back("not a key or a '  field: value' line, " + at);
      continue;
    }
    y.fields[key][line.substr(2, colon - 2)] = line.substr(colon + 2);
  }
  if (!text.empty() && text.back() != '\n') y.errors.push_back("no final newline");
  return y;
}

Preset Entry(const Workload& w, const std::string& layer, Algorithm a, int chunks) {
  return testing_te::TePreset(w, layer, a, chunks);
}

LayerWorkload Llama70b() {
  auto model = LoadModel("llama3-70b");
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto lw = MakeLayerWorkload(*model, 4096, 1, Phase::kPrefill, kTp, DType::kBf16, true);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  return *lw;
}

const Workload& Gemm(const LayerWorkload& lw, const std::string& name) {
  for (const LayerOp& op : lw.ops) {
    if (op.name == name) return op.gemm;
  }
  ADD_FAILURE() << "no op " << name;
  return lw.ops.front().gemm;
}

// One exact entry per TP GEMM: qkv ring, out_proj chunked, fc1 fused, fc2 serial.
PresetFile FullFile(const LayerWorkload& lw) {
  PresetFile f;
  f.presets.push_back(Entry(Gemm(lw, "qkv"), "llama3-70b/qkv", Algorithm::kRing, 1));
  f.presets.push_back(Entry(Gemm(lw, "out_proj"), "llama3-70b/out_proj", Algorithm::kChunked, 4));
  f.presets.push_back(Entry(Gemm(lw, "fc1"), "llama3-70b/fc1", Algorithm::kFused, 1));
  f.presets.push_back(Entry(Gemm(lw, "fc2"), "llama3-70b/fc2", Algorithm::kSerial, 1));
  return f;
}

// nearest: TE's nearest setting where a preset is not expressible (FullFile
// has a fused and a serial GEMM, which TE cannot run as tuned).
TeExportInfo Info(bool nearest = true) {
  TeExportInfo info;
  info.braid_version = "9.8.7";
  info.source = "tuned.toml";
  info.default_comm_sms = kDefaultSms;
  info.default_comm_sms_origin = "topology h100-sxm nccl_channels";
  info.nearest = nearest;
  return info;
}

// Exact by default: a preset TE cannot run as tuned is refused, naming its key.
TEST(TeExportYaml, ExactByDefaultRefusesWhatTeCannotRunNamingTheKey) {
  const LayerWorkload lw = Llama70b();
  auto text = ExportTeYaml(PresetTable::FromFile(FullFile(lw)), lw, "h100-sxm", "h100-sxm", Info(false));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(text.status().message(), AllOf(HasSubstr("fc1_fprop: fused chunks=1"), HasSubstr("not expressible in TE"),
                                             HasSubstr("`runtime` te"), HasSubstr("`nearest`")));
  EXPECT_EQ(text.status().message().find('\n'), std::string::npos);

  // TE's own methods and knobs export exactly, with nothing approximated.
  PresetFile te = FullFile(lw);
  te.presets[2] = Entry(Gemm(lw, "fc1"), "llama3-70b/fc1", Algorithm::kRing, 1);
  te.presets[3] = Entry(Gemm(lw, "fc2"), "llama3-70b/fc2", Algorithm::kDirect, 1);
  auto exact = BuildTeUbCfgs(PresetTable::FromFile(te), lw, "h100-sxm", "h100-sxm", Info(false));
  ASSERT_TRUE(exact.ok()) << exact.status().message();
  for (const TeUbCfg& c : exact->layers) {
    EXPECT_FALSE(c.nearest) << c.key;
    EXPECT_THAT(c.te.comments, IsEmpty()) << c.key;
  }
  const std::string yaml = TeUbCfgsYaml(*exact);
  EXPECT_THAT(yaml, AllOf(HasSubstr("every key runs exactly the preset's config"), Not(HasSubstr("not expressible"))));
}

TEST(TeExportYaml, FourKeysWithEightFieldsEach) {
  const LayerWorkload lw = Llama70b();
  const PresetTable table = PresetTable::FromFile(FullFile(lw));
  auto text = ExportTeYaml(table, lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const Yaml y = ParseYaml(*text);
  EXPECT_THAT(y.errors, IsEmpty()) << *text;
  EXPECT_THAT(y.keys, ElementsAre("qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop"));
  for (const std::string& key : y.keys) {
    std::vector<std::string> names;
    for (const auto& [name, value] : y.fields.at(key)) names.push_back(name);
    EXPECT_THAT(names, ElementsAre("aggregate", "atomic_gemm", "cga_size", "method", "num_sm", "num_splits",
                                   "set_sm_margin", "use_ce"))
        << key;
    for (const char* flag : {"aggregate", "atomic_gemm", "set_sm_margin", "use_ce"}) {
      const std::string v = y.fields.at(key).at(flag);
      EXPECT_TRUE(v == "0" || v == "1") << key << "." << flag << " = " << v;
    }
  }
  // Each algorithm as mapped.
  EXPECT_EQ(y.fields.at("qkv_fprop").at("method"), "ring_exchange");
  EXPECT_EQ(y.fields.at("qkv_fprop").at("num_splits"), "8");
  EXPECT_EQ(y.fields.at("proj_fprop").at("method"), "pipeline");
  EXPECT_EQ(y.fields.at("proj_fprop").at("num_splits"), "4");
  EXPECT_EQ(y.fields.at("proj_fprop").at("num_sm"), "16");
  EXPECT_EQ(y.fields.at("proj_fprop").at("set_sm_margin"), "1");
  EXPECT_EQ(y.fields.at("fc1_fprop").at("method"), "ring_exchange");
  EXPECT_EQ(y.fields.at("fc1_fprop").at("atomic_gemm"), "0");  // bf16: TE takes atomic GEMM for FP8 only
  EXPECT_EQ(y.fields.at("fc2_fprop").at("method"), "pipeline");
  EXPECT_EQ(y.fields.at("fc2_fprop").at("num_splits"), "1");
  // Comments stand above the key they are about.
  EXPECT_THAT(y.comments.at("qkv_fprop"), HasSubstr("exact match"));
  EXPECT_THAT(y.comments.at("proj_fprop"), Not(HasSubstr("not expressible")));
  EXPECT_THAT(y.comments.at("fc1_fprop"), HasSubstr("nearest accepted method, ring_exchange"));
  EXPECT_THAT(y.comments.at("fc2_fprop"), HasSubstr("serial: no overlap; nearest TE setting"));
  EXPECT_THAT(y.comments.at("qkv_fprop"), Not(HasSubstr("nearest match")));
}

TEST(TeExportYaml, HeaderNamesVersionWorkloadSourceAndBackend) {
  const LayerWorkload lw = Llama70b();
  const PresetTable table = PresetTable::FromFile(FullFile(lw));
  auto text = ExportTeYaml(table, lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const Yaml y = ParseYaml(*text);
  EXPECT_THAT(y.header, AllOf(HasSubstr("generated by braid 9.8.7"), HasSubstr("llama3-70b"), HasSubstr("seq 4096"),
                              HasSubstr("batch 1"), HasSubstr("tp 8"), HasSubstr("topology h100-sxm"),
                              HasSubstr("source presets: tuned.toml"),
                              HasSubstr("configs measured on the sim backend (simulated)"),
                              HasSubstr("as 24: topology h100-sxm nccl_channels")));
}

TEST(TeExportYaml, UnexpressibleKnobsAreListedAboveTheirKey) {
  const LayerWorkload lw = Llama70b();
  PresetFile f = FullFile(lw);
  f.presets[1].config.splits = {2, 1, 1, 1};  // out_proj: uneven chunked
  f.presets[1].config.comm_lanes = 2;
  f.presets[0].config.algorithm = Algorithm::kBidirRing;  // qkv
  f.presets[0].config.chunks = 2;
  auto text = ExportTeYaml(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const Yaml y = ParseYaml(*text);
  EXPECT_THAT(y.errors, IsEmpty());
  EXPECT_THAT(y.comments.at("proj_fprop"),
              AllOf(HasSubstr("not expressible: splits=[2,1,1,1]"), HasSubstr("not expressible: streams=2")));
  EXPECT_THAT(y.comments.at("qkv_fprop"),
              AllOf(HasSubstr("bidirectional ring not expressible"), HasSubstr("not expressible: chunks=2")));
  EXPECT_THAT(y.comments.at("fc2_fprop"), Not(HasSubstr("splits=")));
}

TEST(TeExportYaml, NearestMatchIsMarkedWithItsShape) {
  const LayerWorkload lw = Llama70b();
  PresetFile f = FullFile(lw);
  f.presets.erase(f.presets.begin() + 1);  // no out_proj entry: fc2's (gemm_rs) is nearest
  auto text = ExportTeYaml(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const Yaml y = ParseYaml(*text);
  EXPECT_THAT(y.errors, IsEmpty());
  EXPECT_THAT(y.comments.at("proj_fprop"), AllOf(HasSubstr("nearest match"), HasSubstr("gemm_rs M=4096 N=8192 K=28672"),
                                                 HasSubstr("llama3-70b/fc2")));
  EXPECT_EQ(y.fields.at("proj_fprop").at("num_splits"), "1");  // fc2's serial config
  EXPECT_THAT(y.comments.at("fc2_fprop"), Not(HasSubstr("nearest match")));
}

TEST(TeExportYaml, AGemmWithNoEntryIsAnErrorNamingTheOp) {
  const LayerWorkload lw = Llama70b();
  PresetFile f = FullFile(lw);
  f.presets.erase(f.presets.begin() + 3);
  f.presets.erase(f.presets.begin() + 1);  // no gemm_rs entries at all
  auto text = ExportTeYaml(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(text.status().message(), AllOf(HasSubstr("out_proj"), HasSubstr("tuned.toml")));

  auto other_gpu = ExportTeYaml(PresetTable::FromFile(FullFile(lw)), lw, "a100-sxm", "h100-sxm", Info());
  ASSERT_FALSE(other_gpu.ok());
  EXPECT_THAT(other_gpu.status().message(), HasSubstr("qkv"));
}

TEST(TeExportYaml, MixedBackendsAreAllNamed) {
  const LayerWorkload lw = Llama70b();
  PresetFile f = FullFile(lw);
  f.presets[2].backend = "cuda";
  auto text = ExportTeYaml(PresetTable::FromFile(f), lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(ParseYaml(*text).header, HasSubstr("configs measured on the sim, cuda backends"));
  EXPECT_THAT(ParseYaml(*text).comments.at("fc1_fprop"), HasSubstr("on the cuda backend"));
}

TEST(TeExportYaml, NeedsSequenceParallelism) {
  auto model = LoadModel("llama3-70b");
  ASSERT_TRUE(model.ok());
  auto lw = MakeLayerWorkload(*model, 4096, 1, Phase::kPrefill, kTp, DType::kBf16, false);
  ASSERT_TRUE(lw.ok());
  auto text = ExportTeYaml(PresetTable::FromFile(FullFile(Llama70b())), *lw, "h100-sxm", "h100-sxm", Info());
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("sequence parallelism"));
}

TEST(TeExportYaml, PresetTpsListsTheDegreesOfOneGpuAndTopology) {
  const LayerWorkload lw = Llama70b();
  PresetFile f = FullFile(lw);
  Preset p4 = f.presets[0];
  p4.key.workload.tp = 4;
  f.presets.push_back(p4);
  Preset other = f.presets[0];
  other.key.workload.tp = 2;
  other.key.topology = "h200-sxm";
  f.presets.push_back(other);
  const PresetTable table = PresetTable::FromFile(f);
  EXPECT_THAT(PresetTps(table, "h100-sxm", "h100-sxm"), ElementsAre(4, 8));
  EXPECT_THAT(PresetTps(table, "h100-sxm", "h200-sxm"), ElementsAre(2));
  EXPECT_THAT(PresetTps(table, "a100-sxm", "h100-sxm"), IsEmpty());
}

}  // namespace
}  // namespace te_export_yaml_test
}  // namespace braid
