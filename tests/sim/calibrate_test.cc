#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "braid/sim_calibration.h"
#include "braid/topology_files.h"
#include "calibrate_command.h"
#include "cli_exit.h"

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
  EXPECT_EQ(rows->size(), 22u);
  const std::string table = sim::FormatCheckTable(*rows);
  EXPECT_THAT(table, HasSubstr("measured"));
  EXPECT_THAT(table, HasSubstr("h100-sxm-2node-ib x16 all_reduce 1 GB busbw GB/s"));
  EXPECT_THAT(table, HasSubstr("a100-sxm fp16 gemm 802816x192x768"));
  for (const auto& r : *rows) EXPECT_LE(std::abs(r.error_pct), 10.0) << r.what;
}

int Calibrate(const cli::CalibrateArgs& a, std::string* out, std::string* err) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int rc = cli::ExecuteCalibrate(a);
  *out = testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

TEST(CalibrateCommand, GemmJsonHasTimeAndTflops) {
  cli::CalibrateArgs a;
  a.gemm = "8192,8192,8192";
  a.json = true;
  std::string out, err;
  ASSERT_EQ(Calibrate(a, &out, &err), cli::kExitOk) << err;
  const auto j = nlohmann::json::parse(out);
  EXPECT_GT(j.at("time_ns").get<double>(), 1e6);
  EXPECT_NEAR(j.at("tflops").get<double>(), 797.5, 40);
}

TEST(CalibrateCommand, CollectiveJsonHasBandwidths) {
  cli::CalibrateArgs a;
  a.collective = "all_reduce";
  a.bytes = "1G";
  a.json = true;
  std::string out, err;
  ASSERT_EQ(Calibrate(a, &out, &err), cli::kExitOk) << err;
  const auto j = nlohmann::json::parse(out);
  EXPECT_NEAR(j.at("busbw_gbps").get<double>(), j.at("algbw_gbps").get<double>() * 1.75, 1e-6);
  EXPECT_GT(j.at("time_ns").get<double>(), 0);
}

TEST(CalibrateCommand, CheckPrintsTheTableAndSucceeds) {
  cli::CalibrateArgs a;
  a.check = true;
  std::string out, err;
  EXPECT_EQ(Calibrate(a, &out, &err), cli::kExitOk) << err;
  EXPECT_THAT(out, HasSubstr("error %"));
}

TEST(CalibrateCommand, BadInputIsOneLineAndExitTwo) {
  const auto expect_usage = [](cli::CalibrateArgs a, const char* what) {
    std::string out, err;
    EXPECT_EQ(Calibrate(a, &out, &err), cli::kExitUsage) << what;
    EXPECT_THAT(err, HasSubstr(what));
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  };
  cli::CalibrateArgs a;
  a.gemm = "1,2";
  expect_usage(a, "--gemm");
  a.gemm = "1024,1024,1024";
  a.gpu = "b200";
  expect_usage(a, "h100-sxm");  // lists the known GPUs
  a = {};
  a.collective = "all_reduce";
  a.bytes = "12Q";
  expect_usage(a, "--bytes");
  a.bytes = "1M";
  a.topology = "nowhere";
  expect_usage(a, "a100-sxm");  // lists the known topologies
  a = {};
  expect_usage(a, "exactly one");
  a.check = true;
  a.gemm = "1,1,1";
  expect_usage(a, "exactly one");
}

}  // namespace
}  // namespace braid
