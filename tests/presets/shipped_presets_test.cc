// The tuned presets shipped in presets/tuned: every promised combination is
// there, loads, is marked simulated, and a runtime finds its GEMMs exactly.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/presets.h"

namespace braid {
namespace {

const char* const kModels[] = {"llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b"};

void CheckShipped(const std::string& topology, std::initializer_list<int> tps) {
  const std::string path = std::string(BRAID_SOURCE_DIR) + "/presets/tuned/" + topology + ".toml";
  Result<PresetTable> table = PresetTable::Load(path);
  ASSERT_TRUE(table.ok()) << table.status().message();
  std::set<std::string> layers;
  for (const Preset& p : table->presets()) {
    EXPECT_EQ(p.backend, "sim") << "shipped presets are simulated and say so";
    EXPECT_EQ(p.key.topology, topology);
    EXPECT_GE(p.speedup_vs_serial, 1.0) << p.key.layer << ": exhaustive cannot lose to serial";
    EXPECT_GE(p.speedup_vs_te_default, 1.0) << p.key.layer;
    layers.insert(p.key.layer);
  }
  EXPECT_EQ(layers.size(), 16u) << "4 models x 4 TP GEMMs";
  for (const char* name : kModels) {
    Result<ModelSpec> model = LoadModel(name);
    ASSERT_TRUE(model.ok());
    for (int64_t seq : {4096, 8192}) {
      for (int tp : tps) {
        Result<LayerWorkload> lw = MakeLayerWorkload(*model, seq, 1, Phase::kPrefill, tp, DType::kBf16);
        ASSERT_TRUE(lw.ok()) << lw.status().message();
        for (const LayerOp& op : lw->ops) {
          if (op.kind != LayerOpKind::kTpGemm) continue;
          LookupResult r = table->Lookup(op.gemm, topology, topology);
          EXPECT_EQ(r.match, PresetMatch::kExact) << name << " seq " << seq << " tp " << tp << " " << op.name;
        }
      }
    }
  }
}

// FP8 (fp8_e4m3) entries: every llama3 prefill TP GEMM at TP 2/4/8 is found
// exactly by an FP8 query, every entry keeps TE's default comm dtypes, and a
// bf16 query never gets an FP8 entry (nor the reverse).
void CheckShippedFp8(const std::string& topology) {
  const std::string path = std::string(BRAID_SOURCE_DIR) + "/presets/tuned/" + topology + ".toml";
  Result<PresetTable> table = PresetTable::Load(path);
  ASSERT_TRUE(table.ok()) << table.status().message();
  int fp8 = 0;
  for (const Preset& p : table->presets()) {
    if (p.key.workload.dtype != DType::kFp8E4m3) continue;
    ++fp8;
    EXPECT_FALSE(p.config.comm_dtype.has_value()) << p.key.layer << ": shipped FP8 presets use the default";
    EXPECT_GE(p.speedup_vs_serial, 1.0) << p.key.layer;
  }
  EXPECT_GT(fp8, 0);
  for (const char* name : {"llama3-8b", "llama3-70b", "llama3-405b"}) {
    Result<ModelSpec> model = LoadModel(name);
    ASSERT_TRUE(model.ok());
    for (int64_t seq : {4096, 8192}) {
      for (int tp : {2, 4, 8}) {
        for (Phase phase : {Phase::kPrefill, Phase::kTrain}) {
          Result<LayerWorkload> lw = MakeLayerWorkload(*model, seq, 1, phase, tp, DType::kFp8E4m3);
          ASSERT_TRUE(lw.ok()) << lw.status().message();
          for (const LayerOp& op : lw->ops) {
            if (op.kind != LayerOpKind::kTpGemm) continue;
            LookupResult r = table->Lookup(op.gemm, topology, topology, "", op.pass);
            ASSERT_EQ(r.match, PresetMatch::kExact) << name << " seq " << seq << " tp " << tp << " " << op.name;
            EXPECT_EQ(r.preset->key.workload.dtype, DType::kFp8E4m3);
            Workload bf16 = op.gemm;
            bf16.dtype = DType::kBf16;
            LookupResult b = table->Lookup(bf16, topology, topology, "", op.pass);
            if (b.preset != nullptr) {
              EXPECT_EQ(b.preset->key.workload.dtype, DType::kBf16) << op.name;
            }
          }
        }
      }
    }
  }
}

TEST(ShippedPresets, H100SxmHoldsEveryModelAtTp248) { CheckShipped("h100-sxm", {2, 4, 8}); }
TEST(ShippedPresets, Fp8ForH100H200AndB200) {
  for (const char* topology : {"h100-sxm", "h200-sxm", "b200-sxm"}) {
    SCOPED_TRACE(topology);
    CheckShippedFp8(topology);
  }
}
TEST(ShippedPresets, A100HasNoFp8Entries) {
  Result<PresetTable> table = PresetTable::Load(std::string(BRAID_SOURCE_DIR) + "/presets/tuned/a100-sxm.toml");
  ASSERT_TRUE(table.ok()) << table.status().message();
  for (const Preset& p : table->presets()) EXPECT_FALSE(IsFp8(p.key.workload.dtype)) << p.key.layer;
}
TEST(ShippedPresets, A100SxmHoldsEveryModelAtTp48) { CheckShipped("a100-sxm", {4, 8}); }

}  // namespace
}  // namespace braid
