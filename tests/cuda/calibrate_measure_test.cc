// `braid calibrate --measure`: the bad-input cases (exit 2, one line, before
// the device is opened, nothing written), no GPU (exit 1, one line, nothing
// written) through the real binary, and a whole run of the command on the
// model-driven fake device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "braid/gpu_files.h"
#include "braid/gpu_measure_fake.h"
#include "calibrate_command.h"
#include "calibrate_measure.h"
#include "cli_exit.h"
#include "cli_runner.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class CalibrateMeasure : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("braid_calibrate_measure_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  size_t Entries() const { return size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }

  // The command in-process; the device comes from a fake (counted).
  int Run(const cli::CalibrateArgs& a, std::string* out, std::string* err) {
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int rc = cli::CalibrateMeasure(a, [this]() -> Result<std::unique_ptr<measure::MeasureDevice>> {
      ++opened_;
      GpuSpec g = *LoadGpu("h100-sxm");
      g.sm_copy_gbs = 61.5;
      return std::unique_ptr<measure::MeasureDevice>(std::make_unique<measure::FakeMeasureDevice>(g, "Fake H100"));
    });
    *out = testing::internal::GetCapturedStdout();
    *err = testing::internal::GetCapturedStderr();
    return rc;
  }

  void ExpectRefused(const cli::CalibrateArgs& a, const std::string& what) {
    std::string out, err;
    EXPECT_EQ(Run(a, &out, &err), cli::kExitUsage) << what;
    EXPECT_THAT(err, HasSubstr(what));
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(opened_, 0) << "the device was opened for bad input: " << what;
  }

  fs::path dir_;
  int opened_ = 0;
};

cli::CalibrateArgs MeasureArgs(const std::string& gpu_out) {
  cli::CalibrateArgs a;
  a.measure = true;
  a.gpu_out = gpu_out;
  a.quick = true;
  a.no_progress = true;
  return a;
}

TEST_F(CalibrateMeasure, BadOutputPathsExitTwoBeforeTheDeviceIsOpened) {
  ExpectRefused(MeasureArgs(""), "--measure needs --gpu-out FILE.toml");
  ExpectRefused(MeasureArgs(Path("missing/fit.toml")), "does not exist");
  ExpectRefused(MeasureArgs(dir_.string()), "is a directory");
  ExpectRefused(MeasureArgs("-"), "give a file");
  std::ofstream(Path("plain")) << "x";
  cli::CalibrateArgs a = MeasureArgs(Path("fit.toml"));
  a.csv_dir = Path("plain");
  ExpectRefused(a, "--csv-dir '" + Path("plain") + "' is not a directory");
  a.csv_dir = Path("missing/csv");
  ExpectRefused(a, "does not exist");
  a = MeasureArgs(Path("fit.toml"));
  a.gpu = "no-such-gpu";
  ExpectRefused(a, "no-such-gpu");
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directories(Path("ro"));
    fs::permissions(Path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    ExpectRefused(MeasureArgs(Path("ro/fit.toml")), "is not writable");
    fs::permissions(Path("ro"), fs::perms::owner_all);
    fs::remove(Path("ro"));
  }
  // Nothing was written: only the file this test made.
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(CalibrateMeasure, MeasureGoesAlone) {
  cli::CalibrateArgs a = MeasureArgs(Path("fit.toml"));
  a.gemm = "64,64,64";
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli::ExecuteCalibrate(a), cli::kExitUsage);
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr("--measure goes alone"));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(CalibrateMeasure, ADeviceThatCannotBeOpenedExitsOne) {
  std::string out, err;
  testing::internal::CaptureStderr();
  const int rc = cli::CalibrateMeasure(MeasureArgs(Path("fit.toml")), [] {
    return Result<std::unique_ptr<measure::MeasureDevice>>(Status::Invalid("no usable CUDA device: none"));
  });
  err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, cli::kExitFailure);  // not the user's input, whatever the opener's code
  EXPECT_EQ(err, "braid calibrate: no usable CUDA device: none\n");
  EXPECT_EQ(Entries(), 0u);
}

// The real binary with every GPU hidden (CUDA_VISIBLE_DEVICES=""), so that
// this is the no-GPU case on any machine.
TEST_F(CalibrateMeasure, TheBinaryWithoutAGpuExitsOneWithOneLineAndWritesNothing) {
  const auto o =
      testing_cli::RunCaptured("CUDA_VISIBLE_DEVICES= " + std::string(BRAID_EXE) + " calibrate --measure --gpu-out " +
                               Path("fit.toml") + " --csv-dir " + Path("csv"));
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_THAT(o.err, ::testing::MatchesRegex("braid calibrate: .*(no usable CUDA device|no CUDA device|built without "
                                             "CUDA).*\n"));
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(Entries(), 0u);
  // Bad input wins over a missing GPU: exit 2.
  const auto bad = testing_cli::RunCaptured("CUDA_VISIBLE_DEVICES= " + std::string(BRAID_EXE) +
                                            " calibrate --measure --gpu-out " + Path("nowhere/fit.toml"));
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("does not exist"));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(CalibrateMeasure, MeasuresWritesTheCsvsAndTheFittedFile) {
  cli::CalibrateArgs a = MeasureArgs(Path("fit.toml"));
  a.csv_dir = Path("csv");
  a.json = true;
  std::string out, err;
  ASSERT_EQ(Run(a, &out, &err), cli::kExitOk) << err;
  EXPECT_EQ(opened_, 1);
  for (const char* f : {"gemm_bf16.csv", "gemm_beside_held_sms.csv", "copy_kernel_bw.csv", "copy_engine.csv",
                        "launch_gaps.csv", "fused_kernel.csv"}) {
    EXPECT_TRUE(fs::is_regular_file(Path("csv") / fs::path(f))) << f;
  }
  auto gpu = LoadGpu(Path("fit.toml"));
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(gpu->name, "fake-h100");
  EXPECT_NEAR(gpu->sm_copy_gbs, 61.5, 61.5 * 0.1);
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["device"], "Fake H100");
  // The quick grid's fused points (one shape, 2 budgets), fitted: the fake
  // runs the shipped file's fused figures.
  EXPECT_TRUE(j["fused"]["measured"].get<bool>());
  EXPECT_EQ(j["fused"]["points"].get<int>(), 2);
  EXPECT_NEAR(j["fused"]["gemm_efficiency"].get<double>(), 1.0, 0.08);
  ASSERT_EQ(j["files"].size(), 6u);
  EXPECT_EQ(j["files"][4]["file"], "launch_gaps.csv");
  EXPECT_EQ(j["files"][5]["file"], "fused_kernel.csv");
  EXPECT_EQ(j["files"][5]["rows"].get<int>(), 4);
  EXPECT_EQ(j["files"][2]["file"], "copy_kernel_bw.csv");
  // The shipped file's 83.8 GB/s per SM is off for this board; the fit is not.
  EXPECT_GT(j["files"][2]["before"]["max_abs_pct"].get<double>(), 10);
  EXPECT_LT(j["files"][2]["after"]["max_abs_pct"].get<double>(), 10);
  EXPECT_TRUE(j["ok"].get<bool>());
}

TEST_F(CalibrateMeasure, PrintsErrorsPerFileAndPutsTheCsvsBesideTheFileByDefault) {
  cli::CalibrateArgs a = MeasureArgs(Path("board.toml"));
  a.no_progress = false;
  std::string out, err;
  ASSERT_EQ(Run(a, &out, &err), cli::kExitOk) << err;
  EXPECT_THAT(out, HasSubstr("measuring Fake H100 (132 SMs)"));
  EXPECT_THAT(out, HasSubstr("fused kernel (2 points): GEMM efficiency"));
  EXPECT_THAT(out, ::testing::ContainsRegex("fused_kernel.csv +4 "));
  EXPECT_THAT(out, ::testing::ContainsRegex("gemm_bf16.csv +6 "));
  EXPECT_THAT(out, ::testing::ContainsRegex("copy_kernel_bw.csv +4 "));
  // A pipe gets one line per stage with its count and time.
  EXPECT_THAT(err, ::testing::ContainsRegex("gemm_bf16.csv: 6/6 measured in [0-9.]+s\n"));
  EXPECT_THAT(err, ::testing::ContainsRegex("launch_gaps.csv: 4/4 measured in"));
  EXPECT_THAT(err, ::testing::ContainsRegex("fused_kernel.csv: 2/2 measured in"));
  std::vector<std::string> made;
  for (const auto& e : fs::directory_iterator(dir_)) made.push_back(e.path().filename().string());
  ASSERT_EQ(made.size(), 2u);
  std::sort(made.begin(), made.end());
  EXPECT_EQ(made[0], "board-measured-" + made[0].substr(15));
  EXPECT_EQ(made[0].size(), std::string("board-measured-XXXXXX").size());
  EXPECT_EQ(made[1], "board.toml");
  EXPECT_TRUE(fs::is_regular_file(dir_ / made[0] / "gemm_bf16.csv"));
}

}  // namespace
}  // namespace braid
