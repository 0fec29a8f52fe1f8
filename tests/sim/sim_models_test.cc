#include "braid/sim_models.h"

#include <gtest/gtest.h>

#include "braid/sim_calibration.h"
#include "braid/topology_files.h"

namespace braid::sim {
namespace {

GpuSpec H100() { return *LoadGpu("h100-sxm"); }
Topology Topo(const char* n) { return *LoadTopology(n); }

TEST(SimGemmModel, TimeGrowsWithSize) {
  const GpuSpec g = H100();
  double prev = 0;
  for (int64_t s : {512, 1024, 2048, 4096, 8192, 16384}) {
    const double t = GemmTimeNs(g, s, s, s, DType::kBf16);
    EXPECT_GT(t, prev) << s;
    prev = t;
  }
  EXPECT_GT(GemmTimeNs(g, 4096, 4096, 8192, DType::kBf16), GemmTimeNs(g, 4096, 4096, 4096, DType::kBf16));
}

TEST(SimGemmModel, WaveQuantizationIsVisible) {
  GpuSpec g = H100();
  g.hbm_gbs = 1e9;  // isolate the compute part
  // 128×256 tiles: M = 128·132 rows, N = 256 → exactly 132 tiles, one wave.
  const int64_t k = 8192;
  const double one = GemmTimeNs(g, 128 * 132, 256, k, DType::kBf16) - g.launch_us * 1e3;
  const double plus1 = GemmTimeNs(g, 128 * 133, 256, k, DType::kBf16) - g.launch_us * 1e3;
  EXPECT_NEAR(plus1 / one, 2.0, 0.05);
}

TEST(SimGemmModel, FewerSmsAreSlower) {
  const GpuSpec g = H100();
  const double all = GemmTimeNs(g, 8192, 8192, 8192, DType::kBf16);
  const double less = GemmTimeNs(g, 8192, 8192, 8192, DType::kBf16, 132 - 24);
  EXPECT_GT(less, all * 1.15);
}

TEST(SimGemmModel, SmallMIsMemoryBound) {
  const GpuSpec g = H100();
  const GemmCost c = GemmCostOf(g, 16, 8192, 8192, DType::kBf16);
  EXPECT_GT(c.memory_ns, 3 * double(c.Waves(g.sm_count)) * c.tile_ns);
  const double floor = c.hbm_bytes / (g.hbm_gbs * g.hbm_efficiency);
  EXPECT_NEAR(GemmTimeNs(g, 16, 8192, 8192, DType::kBf16), floor + g.launch_us * 1e3, floor * 0.06);
  // Doubling M barely changes a memory-bound GEMM's time.
  EXPECT_LT(GemmTimeNs(g, 32, 8192, 8192, DType::kBf16), 1.02 * GemmTimeNs(g, 16, 8192, 8192, DType::kBf16));
}

TEST(SimGemmModel, MatchesTheMeasuredH100Figures) {
  const GpuSpec g = H100();
  EXPECT_NEAR(PredictGemm(g, 8192, 8192, 8192, DType::kBf16).tflops, 797.5, 797.5 * 0.05);
  EXPECT_NEAR(PredictGemm(g, 4096, 4096, 4096, DType::kBf16).tflops, 788.7, 788.7 * 0.05);
}

TEST(SimCommModel, CollectiveBusBwWithinTenPercentOfEveryCalibrationPoint) {
  auto rows = CheckCalibration();
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 20u);
  for (const CheckRow& r : *rows) EXPECT_LT(std::abs(r.error_pct), 10.0) << r.what << "\n" << FormatCheckTable(*rows);
}

TEST(SimCommModel, OneKilobyteIsALatencyFloor) {
  const Topology t = Topo("h100-sxm");
  const double small = CollectiveTimeNs(t, CollectiveKind::kAllReduce, 1024, 8);
  EXPECT_NEAR(small, 26000, 26000 * 0.1);  // ≈ 26 µs per call (Azure ND H100 v5)
  EXPECT_LT(CollectiveTimeNs(t, CollectiveKind::kAllReduce, 8192, 8), small * 1.1);
}

TEST(SimCommModel, RingStepsAndBusBwFactors) {
  Topology t = Topo("a100-sxm");
  const int64_t bytes = int64_t(1) << 30;
  const CommTime ag = CollectiveTime(t, CollectiveKind::kAllGather, bytes, 8);
  const CommTime ar = CollectiveTime(t, CollectiveKind::kAllReduce, bytes, 8);
  EXPECT_NEAR(ar.transfer_ns / ag.transfer_ns, 2.0, 1e-9);  // 2(P−1) vs P−1 steps of bytes/P
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveKind::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveKind::kReduceScatter, 8), 0.875);
}

TEST(SimCommModel, NvlsBeatsTheRingForLargeAllReduceOnH100Only) {
  const int64_t bytes = int64_t(1) << 30;
  const double h100 = PredictCollective(Topo("h100-sxm"), CollectiveKind::kAllReduce, bytes, 8).busbw_gbps;
  const double ring = PredictCollective(Topo("h100-sxm"), CollectiveKind::kReduceScatter, bytes, 8).busbw_gbps;
  EXPECT_GT(h100, ring * 1.2);
  const double a100 = PredictCollective(Topo("a100-sxm"), CollectiveKind::kAllReduce, bytes, 8).busbw_gbps;
  EXPECT_LT(a100, 300 * 0.8);
}

TEST(SimCommModel, CrossNodeCollectivesUseTheNetwork) {
  const Topology t = Topo("h100-sxm-2node-ib");
  const int64_t bytes = int64_t(256) << 20;
  EXPECT_GT(CollectiveTimeNs(t, CollectiveKind::kAllGather, bytes, 16),
            4 * CollectiveTimeNs(t, CollectiveKind::kAllGather, bytes, 8));
  EXPECT_EQ(&LinkBetween(t, 0, 9), &t.inter);
  EXPECT_EQ(&LinkBetween(t, 1, 7), &t.intra);
}

TEST(SimCommModel, CommSmsComeFromConfigThenTopology) {
  const Topology t = Topo("h100-sxm");
  EXPECT_EQ(CommSms(t, 0), 24);
  EXPECT_EQ(CommSms(t, 8), 8);
}

}  // namespace
}  // namespace braid::sim
