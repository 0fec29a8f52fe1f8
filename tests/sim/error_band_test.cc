// Error bands (braid/sim_error_band.h): the [error_band] tables of GPU and
// topology files, a run's band from its steps' regimes, and the shipped
// files held to what their measured and published rows give. The bands
// in `braid run`, `tune` and `calibrate` output are tested through the
// binary in tests/cli.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/sim_error_band.h"
#include "braid/sim_measured.h"
#include "braid/topology_files.h"
#include "shared_dir.h"

namespace braid {
namespace error_band_test {
namespace {

using ::testing::HasSubstr;

const char* kGpuHead =
    "name = \"g\"\nsm_count = 132\ntflops_bf16 = 989.0\ntflops_fp16 = 989.0\ntflops_fp32 = 494.0\n"
    "hbm_gbs = 3350.0\nhbm_efficiency = 0.9\ntile_m = 128\ntile_n = 256\nefficiency_bf16 = 0.8\n"
    "efficiency_fp16 = 0.8\nefficiency_fp32 = 0.8\nlaunch_us = 2.0\nevent_wait_us = 1.0\ncopy_engines = 2\n"
    "source = \"test\"\n";

const char* kTopologyHead =
    "name = \"t\"\ngpu = \"h100-sxm\"\ngpus_per_node = 8\nnodes = 1\n[intra]\nkind = \"nvswitch\"\n"
    "bandwidth_gbs = 450.0\nlatency_us = 2.0\nsource = \"test\"\n";

TEST(GpuErrorBand, ReadsEachFigureAndMarksTheOthersAssumed) {
  auto g =
      ParseGpuToml(std::string(kGpuHead) + "[error_band]\ngemm = 0.1\nloopback = 0.3\nsource = \"rows\"\n", "g.toml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_DOUBLE_EQ(g->error_band.gemm, 0.1);
  EXPECT_FALSE(g->error_band.gemm_assumed);
  EXPECT_DOUBLE_EQ(g->error_band.loopback, 0.3);
  EXPECT_FALSE(g->error_band.loopback_assumed);
  EXPECT_TRUE(g->error_band.gemm_held_sms_assumed);
  EXPECT_DOUBLE_EQ(g->error_band.gemm_held_sms, GpuErrorBand{}.gemm_held_sms);
  auto none = ParseGpuToml(kGpuHead, "g.toml");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->error_band.any_measured());
}

TEST(GpuErrorBand, ABandOutsideZeroToOneNamesFileLineAndField) {
  for (const char* bad : {"gemm = 1.5", "gemm = -0.1", "loopback = \"x\""}) {
    SCOPED_TRACE(bad);
    auto g = ParseGpuToml(std::string(kGpuHead) + "[error_band]\n" + bad + "\nsource = \"rows\"\n", "g.toml");
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(g.status().message(), HasSubstr("g.toml:18:"));
    EXPECT_THAT(g.status().message(), HasSubstr("error_band."));
    EXPECT_THAT(g.status().message(), HasSubstr("must be a number from 0 to 1"));
  }
  auto unknown = ParseGpuToml(std::string(kGpuHead) + "[error_band]\ngem = 0.1\nsource = \"rows\"\n", "g.toml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("gem"));
  auto no_source = ParseGpuToml(std::string(kGpuHead) + "[error_band]\ngemm = 0.1\n", "g.toml");
  ASSERT_FALSE(no_source.ok());
  EXPECT_THAT(no_source.status().message(), HasSubstr("error_band.source"));
}

TEST(CollectiveErrorBand, ReadsBySizeAndRefusesABandOutsideZeroToOne) {
  auto t =
      ParseTopologyToml(std::string(kTopologyHead) + "[error_band]\ncollective = 0.05\nsource = \"rows\"\n", "t.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_DOUBLE_EQ(t->error_band.For(CollectiveErrorBand::kSmallBytes), 0.05);
  EXPECT_FALSE(t->error_band.AssumedFor(CollectiveErrorBand::kSmallBytes));
  EXPECT_DOUBLE_EQ(t->error_band.For(1024), CollectiveErrorBand{}.collective_small);
  EXPECT_TRUE(t->error_band.AssumedFor(1024));
  auto bad = ParseTopologyToml(std::string(kTopologyHead) + "[error_band]\ncollective_small = 2\nsource = \"rows\"\n",
                               "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("t.toml:11:"));
  EXPECT_THAT(bad.status().message(), HasSubstr("error_band.collective_small must be a number from 0 to 1"));
}

// One rank: a GEMM beside a transfer, the transfer, a GEMM alone.
Plan OneRankPlan() {
  Plan p;
  p.ranks.resize(1);
  auto step = [&](int id, StepKind kind, int64_t bytes) {
    Step s;
    s.id = id;
    s.kind = kind;
    s.bytes = bytes;
    p.ranks[0].steps.push_back(s);
  };
  step(0, StepKind::kGemm, 0);
  step(1, StepKind::kSend, int64_t(8) << 20);
  step(2, StepKind::kGemm, 0);
  return p;
}

TEST(SimErrorBand, ARunsBandIsItsStepsBandsWeightedByTheirTime) {
  GpuSpec gpu;
  gpu.error_band.gemm = 0.1;
  gpu.error_band.gemm_held_sms = 0.3;
  gpu.error_band.loopback = 0.4;
  gpu.error_band.gemm_assumed = gpu.error_band.gemm_held_sms_assumed = gpu.error_band.loopback_assumed = false;
  Topology topo;
  topo.error_band.collective = 0.05;
  topo.error_band.collective_assumed = false;
  const std::vector<std::pair<double, double>> spans = {{0, 100}, {50, 150}, {200, 300}};
  const auto span = [&](int, int step) { return spans[size_t(step)]; };
  const sim::RunErrorBand b = sim::ErrorBandOfRun(OneRankPlan(), gpu, topo, false, span);
  EXPECT_NEAR(b.relative, (0.3 * 100 + 0.05 * 100 + 0.1 * 100) / 300, 1e-12);
  EXPECT_FALSE(b.assumed);
  // A GEMM that only touches the transfer's end runs alone.
  const std::vector<std::pair<double, double>> touching = {{0, 50}, {50, 150}, {150, 250}};
  const sim::RunErrorBand t =
      sim::ErrorBandOfRun(OneRankPlan(), gpu, topo, false, [&](int, int s) { return touching[size_t(s)]; });
  EXPECT_NEAR(t.relative, (0.1 * 50 + 0.05 * 100 + 0.1 * 100) / 250, 1e-12);
  // Loopback: the band measured on whole loopback runs.
  EXPECT_DOUBLE_EQ(sim::ErrorBandOfRun(OneRankPlan(), gpu, topo, true, span).relative, 0.4);
  // A small transfer takes the topology's small-message band, here assumed.
  Plan small = OneRankPlan();
  small.ranks[0].steps[1].bytes = 1024;
  const sim::RunErrorBand s = sim::ErrorBandOfRun(small, gpu, topo, false, span);
  EXPECT_TRUE(s.assumed);
  EXPECT_NEAR(s.relative, (0.3 * 100 + CollectiveErrorBand{}.collective_small * 100 + 0.1 * 100) / 300, 1e-12);
}

TEST(SimErrorBand, Percentile90IsTheNearestRank) {
  EXPECT_EQ(sim::Percentile90({}), 0);
  EXPECT_EQ(sim::Percentile90({0.3}), 0.3);
  std::vector<double> ten = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
  EXPECT_DOUBLE_EQ(sim::Percentile90(ten), 0.9);
  ten.push_back(2.0);  // 11 rows: the 10th
  EXPECT_DOUBLE_EQ(sim::Percentile90(ten), 1.0);
}

// Every shipped topology with published rows says a band no smaller than
// what those rows give, and gives it as measured.
TEST(SimErrorBand, ShippedTopologyBandsCoverTheirPublishedRows) {
  auto derived = sim::DeriveCollectiveErrorBands();
  ASSERT_TRUE(derived.ok()) << derived.status().message();
  ASSERT_GE(derived->size(), 8u);
  for (const sim::DerivedCollectiveBand& d : *derived) {
    SCOPED_TRACE(d.topology);
    auto topo = LoadTopology(d.topology);
    ASSERT_TRUE(topo.ok());
    if (d.collective) {
      EXPECT_FALSE(topo->error_band.collective_assumed);
      EXPECT_GE(topo->error_band.collective, *d.collective);
      EXPECT_GE(topo->error_band.collective, 0.05);  // the floor docs/simulator.md names
    }
    if (d.collective_small) {
      EXPECT_FALSE(topo->error_band.collective_small_assumed);
      EXPECT_GE(topo->error_band.collective_small, *d.collective_small);
    }
  }
}

void ExpectGpuBandCovers(const std::string& gpu_name, const std::string& dir) {
  SCOPED_TRACE(gpu_name + " over " + dir);
  auto gpu = LoadGpu(gpu_name);
  ASSERT_TRUE(gpu.ok());
  auto board = sim::ReadMeasuredBoard(dir, *gpu);
  ASSERT_TRUE(board.ok()) << board.status().message();
  const sim::DerivedGpuBand d = sim::DeriveGpuErrorBand(*gpu, *board);
  ASSERT_TRUE(d.gemm && d.gemm_held_sms);
  EXPECT_FALSE(gpu->error_band.gemm_assumed);
  EXPECT_FALSE(gpu->error_band.gemm_held_sms_assumed);
  EXPECT_GE(gpu->error_band.gemm, *d.gemm);
  EXPECT_GE(gpu->error_band.gemm_held_sms, *d.gemm_held_sms);
  EXPECT_GE(gpu->error_band.gemm_held_sms, gpu->error_band.gemm);
  // Rounded up, not padded: within a point of the rows' own figure.
  EXPECT_LT(gpu->error_band.gemm, *d.gemm + 0.05);
}

TEST(SimErrorBand, ShippedGpuBandsCoverTheRepositorysMeasuredBoards) {
  ExpectGpuBandCovers("h100-sxm", std::string(BRAID_SOURCE_DIR) + "/presets/measured/h100/measure/csv");
  ExpectGpuBandCovers("h200-sxm", std::string(BRAID_SOURCE_DIR) + "/presets/measured/h200/measure/csv");
}

TEST(SimErrorBand, ShippedH100BandsCoverTheSharedMeasuredBoard) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedMeasured);
  ExpectGpuBandCovers("h100-sxm", testing_shared::SharedPath(testing_shared::kSharedMeasured).string());
}

}  // namespace
}  // namespace error_band_test
}  // namespace braid
