// One calibration (braid/gpu_calibration.h) on the model-driven fake device:
// bad input is Invalid before the device is opened and nothing is written,
// a device that cannot be opened is Unavailable, and a whole run writes the
// CSVs and the fitted file. `braid calibrate --measure` itself (flags, exit
// codes, printing) is tested through the binary in tests/cli.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "braid/gpu_calibration.h"
#include "braid/gpu_files.h"
#include "braid/gpu_measure_fake.h"

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

  // A calibration on a fake device (counted) whose copies run at 61.5 GB/s per SM.
  Result<measure::Calibration> Run(const measure::CalibrationRequest& r,
                                   const measure::CalibrationProgress& progress = {}) {
    return measure::CalibrateDevice(
        r,
        [this]() -> Result<std::unique_ptr<measure::MeasureDevice>> {
          ++opened_;
          GpuSpec g = *LoadGpu("h100-sxm");
          g.sm_copy_gbs = 61.5;
          auto fake = std::make_unique<measure::FakeMeasureDevice>(g, "Fake H100");
          if (no_core_) fake->SetCoreDevice(std::nullopt);
          return std::unique_ptr<measure::MeasureDevice>(std::move(fake));
        },
        progress);
  }

  void ExpectRefused(const measure::CalibrationRequest& r, const std::string& what) {
    auto c = Run(r);
    ASSERT_FALSE(c.ok()) << what;
    EXPECT_TRUE(c.status().is_user_error()) << c.status().message();
    EXPECT_THAT(c.status().message(), HasSubstr(what));
    EXPECT_EQ(c.status().message().find('\n'), std::string::npos) << c.status().message();
    EXPECT_EQ(opened_, 0) << "the device was opened for bad input: " << what;
  }

  fs::path dir_;
  int opened_ = 0;
  bool no_core_ = false;  // the fake device has no GEMM core kernel
};

measure::CalibrationRequest Request(const std::string& gpu_out) {
  measure::CalibrationRequest r;
  r.gpu_out = gpu_out;
  r.quick = true;
  return r;
}

TEST_F(CalibrateMeasure, BadOutputPathsAreInvalidBeforeTheDeviceIsOpened) {
  ExpectRefused(Request(""), "gpu_out");
  ExpectRefused(Request(Path("missing/fit.toml")), "does not exist");
  ExpectRefused(Request(dir_.string()), "is a directory");
  ExpectRefused(Request("-"), "`gpu_out`: give a file");
  std::ofstream(Path("plain")) << "x";
  measure::CalibrationRequest r = Request(Path("fit.toml"));
  r.csv_dir = Path("plain");
  ExpectRefused(r, "`csv_dir` '" + Path("plain") + "' is not a directory");
  r.csv_dir = Path("missing/csv");
  ExpectRefused(r, "does not exist");
  r = Request(Path("fit.toml"));
  r.base_gpu = "no-such-gpu";
  ExpectRefused(r, "no-such-gpu");
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directories(Path("ro"));
    fs::permissions(Path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    ExpectRefused(Request(Path("ro/fit.toml")), "is not writable");
    fs::permissions(Path("ro"), fs::perms::owner_all);
    fs::remove(Path("ro"));
  }
  // Nothing was written: only the file this test made.
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(CalibrateMeasure, TheRequestCheckLooksAtTheFileSystemOnly) {
  EXPECT_TRUE(measure::CheckCalibrationRequest(Request(Path("fit.toml"))).ok());
  measure::CalibrationRequest r = Request(Path("fit.toml"));
  r.csv_dir = Path("csv");  // made when missing: its parent is here
  EXPECT_TRUE(measure::CheckCalibrationRequest(r).ok());
  const Status missing = measure::CheckCalibrationRequest(Request(Path("missing/fit.toml")));
  EXPECT_TRUE(missing.is_user_error());
  EXPECT_THAT(missing.message(), ::testing::StartsWith("`gpu_out`: "));
  EXPECT_THAT(missing.message(), HasSubstr("does not exist"));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(CalibrateMeasure, ADeviceThatCannotBeOpenedIsUnavailable) {
  auto c = measure::CalibrateDevice(
      Request(Path("fit.toml")),
      [] { return Result<std::unique_ptr<measure::MeasureDevice>>(Status::Invalid("no usable CUDA device: none")); },
      {});
  ASSERT_FALSE(c.ok());
  // Not the user's input, whatever the opener's code.
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(c.status().message(), "no usable CUDA device: none");
  EXPECT_EQ(Entries(), 0u);
}

// --fused-engine core: the fused figures are the GEMM core's, and the CSV
// and the fitted file's header say so. On a device without a core kernel
// it is bad input found once the device is open: Invalid, one line, and
// neither the CSV folder nor the GPU file is made.
TEST_F(CalibrateMeasure, TheCoreEngineIsMeasuredOrRefusedBeforeAnythingIsWritten) {
  measure::CalibrationRequest r = Request(Path("fit.toml"));
  r.csv_dir = Path("csv");
  r.fused_engine = FusedEngine::kCore;
  no_core_ = true;
  auto refused = Run(r);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().is_user_error()) << refused.status().message();
  EXPECT_EQ(refused.status().message(), "--fused-engine core: Fake H100 has no GEMM core kernel");
  EXPECT_EQ(Entries(), 0u);
  no_core_ = false;
  auto c = Run(r);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_FALSE(c->measurements.fused.empty());
  for (const measure::MeasuredFusedRow& row : c->measurements.fused) EXPECT_EQ(row.engine, FusedEngine::kCore);
  std::ifstream csv(Path("csv/fused_kernel.csv"));
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_EQ(header, "m,n,k,comm_sms,gemm_ms,bytes,transfer_ms,engine");
  EXPECT_THAT(row, ::testing::EndsWith(",core"));
  EXPECT_THAT(c->fit.toml, HasSubstr("points of the core engine"));
}

TEST_F(CalibrateMeasure, MeasuresWritesTheCsvsAndTheFittedFile) {
  measure::CalibrationRequest r = Request(Path("fit.toml"));
  r.csv_dir = Path("csv");
  auto c = Run(r);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(opened_, 1);
  EXPECT_EQ(c->csv_dir, Path("csv"));
  EXPECT_EQ(c->gpu_out, Path("fit.toml"));
  for (const char* f : {"gemm_bf16.csv", "gemm_beside_held_sms.csv", "copy_kernel_bw.csv", "copy_engine.csv",
                        "launch_gaps.csv", "fused_kernel.csv", "gemm_fp8.csv"}) {
    EXPECT_TRUE(fs::is_regular_file(Path("csv") / fs::path(f))) << f;
  }
  auto gpu = LoadGpu(Path("fit.toml"));
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(gpu->name, "fake-h100");
  EXPECT_NEAR(gpu->sm_copy_gbs, 61.5, 61.5 * 0.1);
  const measure::Measurements& m = c->measurements;
  EXPECT_EQ(m.device, "Fake H100");
  // The quick grid's fused points (one shape, 2 budgets), fitted: the fake
  // runs the shipped file's fused figures (the H200's measured 0.0046).
  EXPECT_EQ(m.fused.size(), 2u);
  EXPECT_NEAR(c->fit.fit.gpu.fused_gemm_efficiency, 0.0046, 0.0046 * 0.08);
  const auto before = measure::ErrorsByFile(c->fit.fit.before, m);
  const auto after = measure::ErrorsByFile(c->fit.fit.after, m);
  ASSERT_EQ(before.size(), 7u);
  ASSERT_EQ(after.size(), 7u);
  EXPECT_EQ(after[6].file, "gemm_fp8.csv");  // the H100 fake has FP8
  EXPECT_EQ(after[6].rows, 6);
  EXPECT_EQ(after[6].off, 0);
  EXPECT_EQ(before[4].file, "launch_gaps.csv");
  EXPECT_EQ(before[5].file, "fused_kernel.csv");
  EXPECT_EQ(before[5].rows, 4);
  EXPECT_EQ(before[2].file, "copy_kernel_bw.csv");
  // The shipped file's 83.8 GB/s per SM is off for this board; the fit is not.
  EXPECT_GT(before[2].max_abs_pct, 10);
  EXPECT_LT(after[2].max_abs_pct, 10);
  EXPECT_TRUE(c->fit.fit.after.ok());
}

TEST_F(CalibrateMeasure, ReportsProgressAndPutsTheCsvsBesideTheFileByDefault) {
  std::vector<std::string> events;
  std::map<std::string, measure::StageProgress> last;
  measure::CalibrationProgress progress;
  progress.planned = [&](const measure::MeasureDevice& d, const measure::MeasurePlan& plan) {
    events.push_back("planned " + d.Name() + " " + std::to_string(d.SmCount()) + " " +
                     std::to_string(plan.gemm_shapes.size()));
  };
  progress.stage = [&](const measure::StageProgress& p) {
    if (last.empty() || events.back() != "stages") events.push_back("stages");
    last[p.stage] = p;
  };
  progress.fitting = [&] { events.push_back("fitting"); };
  auto c = Run(Request(Path("board.toml")), progress);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_THAT(events, ::testing::ElementsAre("planned Fake H100 132 6", "stages", "fitting"));
  EXPECT_EQ(last["gemm_bf16.csv"].done, 6);
  EXPECT_EQ(last["gemm_bf16.csv"].total, 6);
  EXPECT_EQ(last["launch_gaps.csv"].done, 4);
  EXPECT_EQ(last["fused_kernel.csv"].done, 2);
  EXPECT_EQ(last["fused_kernel.csv"].total, 2);
  const auto errors = measure::ErrorsByFile(c->fit.fit.after, c->measurements);
  EXPECT_EQ(errors[0].file, "gemm_bf16.csv");
  EXPECT_EQ(errors[0].rows, 6);
  EXPECT_EQ(errors[2].rows, 4);
  EXPECT_EQ(errors[5].rows, 4);
  std::vector<std::string> made;
  for (const auto& e : fs::directory_iterator(dir_)) made.push_back(e.path().filename().string());
  ASSERT_EQ(made.size(), 2u);
  std::sort(made.begin(), made.end());
  EXPECT_EQ(made[0], "board-measured-" + made[0].substr(15));
  EXPECT_EQ(made[0].size(), std::string("board-measured-XXXXXX").size());
  EXPECT_EQ(made[1], "board.toml");
  EXPECT_EQ(c->csv_dir, (dir_ / made[0]).string());
  EXPECT_TRUE(fs::is_regular_file(dir_ / made[0] / "gemm_bf16.csv"));
}

}  // namespace
}  // namespace braid
