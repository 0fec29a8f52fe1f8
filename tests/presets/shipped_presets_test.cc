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

TEST(ShippedPresets, H100SxmHoldsEveryModelAtTp248) { CheckShipped("h100-sxm", {2, 4, 8}); }
TEST(ShippedPresets, A100SxmHoldsEveryModelAtTp48) { CheckShipped("a100-sxm", {4, 8}); }

}  // namespace
}  // namespace braid
