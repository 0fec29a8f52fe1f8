// tests/shared_dir.h: where the tests find the shared data folder, and that a missing or
// partial copy reads as absent (so those tests skip rather than fail).
#include "shared_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"

namespace braid::testing_shared {
namespace {

namespace fs = std::filesystem;

// Points BRAID_SHARED_DIR at a fresh folder for one test; restores it after.
class SharedDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("BRAID_SHARED_DIR");
    had_old_ = old != nullptr;
    if (had_old_) old_ = old;
    ::setenv("BRAID_SHARED_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_old_) {
      ::setenv("BRAID_SHARED_DIR", old_.c_str(), 1);
    } else {
      ::unsetenv("BRAID_SHARED_DIR");
    }
  }

  testing_files::TempDir tmp_;
  const fs::path& dir_ = tmp_.dir();
  bool had_old_ = false;
  std::string old_;
};

TEST_F(SharedDirTest, TheEnvironmentOverridesTheCompiledInFolder) {
  EXPECT_EQ(SharedDir(), dir_);
  ::setenv("BRAID_SHARED_DIR", "", 1);
  EXPECT_EQ(SharedDir(), fs::path(BRAID_DEFAULT_SHARED_DIR));
  ::unsetenv("BRAID_SHARED_DIR");
  EXPECT_EQ(SharedDir(), fs::path(BRAID_DEFAULT_SHARED_DIR));
}

TEST_F(SharedDirTest, APartIsAbsentUntilItsMarkerFileIsThere) {
  EXPECT_TRUE(SharedPath(kSharedTraces).empty());
  fs::create_directories(dir_ / "traces" / "expected.json");  // a folder, not the file
  EXPECT_TRUE(SharedPath(kSharedTraces).empty());
  fs::remove(dir_ / "traces" / "expected.json");
  std::ofstream(dir_ / "traces" / "expected.json") << "{}";
  EXPECT_EQ(SharedPath(kSharedTraces), dir_ / "traces");
  EXPECT_TRUE(SharedPath(kSharedMeasured).empty());
}

TEST_F(SharedDirTest, TheSkipMessageNamesTheMissingFileAndTheVariable) {
  const std::string message = SharedAbsent(kSharedMeasured);
  EXPECT_NE(message.find((dir_ / "calibration/h100-measured/gemm_bf16.csv").string()), std::string::npos) << message;
  EXPECT_NE(message.find("BRAID_SHARED_DIR"), std::string::npos) << message;
}

}  // namespace
}  // namespace braid::testing_shared
