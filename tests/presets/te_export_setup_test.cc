// PrepareTeExport: what export-te and Python's te_ub_cfgs share before
// BuildTeUbCfgs (braid/te_export_setup.h).
#include "braid/te_export_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/model_files.h"
#include "braid/topology_files.h"
#include "te_test_presets.h"

namespace braid {
namespace te_export_setup_test {
namespace {

using ::testing::HasSubstr;

TeExportRequest Llama70b() {
  TeExportRequest r;
  auto model = LoadModel("llama3-70b");
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto topo = LoadTopology("h100-sxm");
  EXPECT_TRUE(topo.ok()) << topo.status().message();
  r.model = *model;
  r.topology = *topo;
  r.seq = 4096;
  r.batch = 1;
  r.source = "presets.toml";
  return r;
}

// A table with presets of the block at each of `tps`.
PresetTable TableAt(const std::vector<int>& tps) {
  PresetFile file;
  for (int tp : tps) {
    TeExportRequest r = Llama70b();
    auto lw = MakeLayerWorkload(r.model, r.seq, r.batch, Phase::kPrefill, tp, DType::kBf16, true);
    EXPECT_TRUE(lw.ok()) << lw.status().message();
    PresetFile at = testing_te::LayerPresets(*lw, [](const LayerOp&) { return Algorithm::kRing; });
    file.presets.insert(file.presets.end(), at.presets.begin(), at.presets.end());
  }
  return PresetTable::FromFile(file);
}

TEST(TeExportSetup, TheTablesOnlyTpBuildsTheSequenceParallelBlock) {
  auto p = PrepareTeExport(Llama70b(), TableAt({8}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->block.tp, 8);
  EXPECT_TRUE(p->block.sequence_parallel);
  EXPECT_EQ(p->gpu, "h100-sxm");
  EXPECT_EQ(p->topology, "h100-sxm");
  EXPECT_EQ(p->info.source, "presets.toml");
}

TEST(TeExportSetup, SeveralTpsAskForTpByItsField) {
  auto p = PrepareTeExport(Llama70b(), TableAt({4, 8}));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("several TP degrees (4, 8)"));
  EXPECT_THAT(p.status().message(), HasSubstr("pass `tp`"));
}

TEST(TeExportSetup, NoPresetsForTheTopologyIsNotFound) {
  TeExportRequest r = Llama70b();
  r.gpu = "b200";
  auto p = PrepareTeExport(r, TableAt({8}));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(p.status().message(), HasSubstr("no presets for gpu b200"));
}

TEST(TeExportSetup, AGivenTpThatDoesNotFitIsRefused) {
  TeExportRequest r = Llama70b();
  r.tp = 1024;
  EXPECT_FALSE(PrepareTeExport(r, TableAt({8})).ok());
}

}  // namespace
}  // namespace te_export_setup_test
}  // namespace braid
