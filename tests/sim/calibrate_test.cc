// What `braid calibrate` computes (braid/sim_calibration.h); the command
// itself is tested through the binary in tests/cli.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "braid/gpu_files.h"
#include "braid/sim_calibration.h"
#include "braid/topology_files.h"

namespace braid {
namespace {

using ::testing::HasSubstr;

TEST(CalibrateLibrary, ParsesGemmShapes) {
  auto s = sim::ParseGemmShape("8K,4096,1M", "--gemm");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->m, 8192);
  EXPECT_EQ(s->n, 4096);
  EXPECT_EQ(s->k, 1 << 20);
  for (const char* bad : {"", "8192", "1,2", "1,2,3,4", "1,,3", "1,x,3", "1,-2,3"}) {
    auto b = sim::ParseGemmShape(bad, "--gemm");
    EXPECT_FALSE(b.ok()) << bad;
    if (!b.ok()) {
      EXPECT_THAT(b.status().message(), HasSubstr("--gemm"));
    }
  }
}

TEST(CalibrateLibrary, CollectiveFiguresFollowTheBusBwRule) {
  auto t = LoadTopology("h100-sxm");
  ASSERT_TRUE(t.ok());
  const auto ag = sim::PredictCollective(*t, CollectiveKind::kAllGather, int64_t(1) << 30, 8);
  EXPECT_NEAR(ag.busbw_gbps, ag.algbw_gbps * 7 / 8, 1e-9);
  EXPECT_NEAR(ag.algbw_gbps, double(int64_t(1) << 30) / ag.time_ns, 1e-9);
  EXPECT_NEAR(ag.busbw_gbps, 370, 37);
  EXPECT_FALSE(sim::ParseCollectiveKind("broadcast").ok());
}

TEST(CalibrateLibrary, CheckCoversEveryPublicFigureWithinTenPercent) {
  auto rows = sim::CheckCalibration();
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->size(), 39u);
  const std::string table = sim::FormatCheckTable(*rows);
  EXPECT_THAT(table, HasSubstr("measured"));
  EXPECT_THAT(table, HasSubstr("h100-sxm-2node-ib x16 all_reduce 1 GB busbw GB/s"));
  EXPECT_THAT(table, HasSubstr("a100-sxm fp16 gemm 802816x192x768"));
  EXPECT_THAT(table, HasSubstr("b200-sxm x8 all_reduce 8 GB busbw GB/s"));
  EXPECT_THAT(table, HasSubstr("h100-sxm fp8_e4m3 gemm 8192x8192x8192 TFLOP/s"));
  for (const auto& r : *rows) EXPECT_LE(std::abs(r.error_pct), 10.0) << r.what;
}

TEST(CalibrateLibrary, PredictsTheGemmAloneAndBesideHeldSms) {
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  const sim::GemmShape big{8192, 8192, 8192};
  const sim::GemmPrediction p = sim::PredictGemmBesideHeldSms(gpu, big, DType::kBf16, 0, sim::SmHolder::kSpin);
  EXPECT_GT(p.time_ns, 1e6);
  EXPECT_NEAR(p.tflops, 797.5, 40);
  // The cliff: a GEMM whose tiles fill one wave loses it beside 4 held SMs.
  const sim::GemmShape s{4096, 1280, 8192};
  const double alone = sim::PredictGemmBesideHeldSms(gpu, s, DType::kBf16, 0, sim::SmHolder::kSpin).time_ns;
  const sim::GemmPrediction spin = sim::PredictGemmBesideHeldSms(gpu, s, DType::kBf16, 4, sim::SmHolder::kSpin);
  EXPECT_GT(spin.time_ns, 1.7 * alone);
  EXPECT_NEAR(spin.tflops, 2.0 * 4096 * 1280 * 8192 / spin.time_ns / 1e3, 1e-9);
  const sim::GemmPrediction copy = sim::PredictGemmBesideHeldSms(gpu, s, DType::kBf16, 4, sim::SmHolder::kCopy);
  EXPECT_GT(copy.time_ns, alone);
}

TEST(CalibrateLibrary, HeldSmsAndHolderAreCheckedNamingTheirFields) {
  const GpuSpec gpu = *LoadGpu("h100-sxm");
  EXPECT_TRUE(sim::CheckHeldSms(gpu, 0).ok());
  EXPECT_TRUE(sim::CheckHeldSms(gpu, 131).ok());
  EXPECT_THAT(sim::CheckHeldSms(gpu, -1).message(), HasSubstr("held_sms"));
  const Status s = sim::CheckHeldSms(gpu, 132);
  EXPECT_TRUE(s.is_user_error());
  EXPECT_EQ(s.message(), "`held_sms` must be between 0 and 131 (h100-sxm has 132 SMs), got 132");
  EXPECT_EQ(*sim::ParseSmHolder("spin"), sim::SmHolder::kSpin);
  EXPECT_EQ(*sim::ParseSmHolder("copy"), sim::SmHolder::kCopy);
  EXPECT_EQ(sim::SmHolderName(sim::SmHolder::kCopy), "copy");
  auto nap = sim::ParseSmHolder("nap");
  ASSERT_FALSE(nap.ok());
  EXPECT_EQ(nap.status().message(), "`holder` must be spin or copy, got 'nap'");
}

TEST(CalibrateLibrary, CollectiveRanksAreTpOrEveryGpu) {
  auto t = LoadTopology("h100-sxm");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*sim::CollectiveRanks(*t, -1), t->total_gpus());
  EXPECT_EQ(*sim::CollectiveRanks(*t, 4), 4);
  auto zero = sim::CollectiveRanks(*t, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_TRUE(zero.status().is_user_error());
  EXPECT_THAT(zero.status().message(), HasSubstr("`tp` must be at least 2, got 0"));
  EXPECT_THAT(sim::CollectiveRanks(*t, 1).status().message(), HasSubstr("`tp` must be at least 2"));
  EXPECT_FALSE(sim::CollectiveRanks(*t, -2).ok());
  EXPECT_FALSE(sim::CollectiveRanks(*t, t->total_gpus() + 1).ok());
}

}  // namespace
}  // namespace braid
