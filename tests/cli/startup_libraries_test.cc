// What the braid command maps at start: OpenBLAS (and its Fortran runtime)
// only once a GEMM runs on the host, as cuBLASLt only once one runs on a
// GPU. Read from the dynamic loader's own list (LD_DEBUG=files). And what a
// cpu run says when the library cannot be had.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "../temp_dir.h"
#include "cli_runner.h"

namespace braid {
namespace {

using testing_cli::Outcome;
using testing_cli::RunCaptured;

Outcome BraidLoading(const std::string& args) {
  return RunCaptured("LD_DEBUG=files " + std::string(BRAID_EXE) + " " + args);
}

TEST(CliStartup, ACommandWithoutGemmsLoadsNoBlas) {
  const Outcome o = BraidLoading("--version");
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_NE(o.err.find("file=libsqlite3"), std::string::npos) << "no loader list: " << o.err.substr(0, 300);
  EXPECT_EQ(o.err.find("openblas"), std::string::npos);
  EXPECT_EQ(o.err.find("gfortran"), std::string::npos);
  EXPECT_EQ(o.err.find("cublasLt"), std::string::npos);
}

TEST(CliStartup, ACpuRunLoadsOpenBlasWhenItRuns) {
  const Outcome o = BraidLoading(
      "run --backend cpu --op ag_gemm --m 64 --n 64 --k 64 --tp 2 --algo ring --iters 1 --warmup 0 --no-db --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const size_t at = o.err.find("file=libopenblas.so.0");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(o.err.find("dynamically loaded", at), std::string::npos) << o.err.substr(at, 200);
}

// A cpu run with LD_LIBRARY_PATH pointing at `dir`, whose libopenblas.so.0
// the loader then finds before the system's; its store in `dir` too.
Outcome CpuRunFindingBlasIn(const std::string& dir) {
  return RunCaptured("LD_LIBRARY_PATH=" + dir + " " + std::string(BRAID_EXE) +
                     " run --backend cpu --op ag_gemm --m 64 --n 64 --k 64 --tp 2 --algo ring --iters 1 --warmup 0"
                     " --db " +
                     dir + "/runs.db");
}

// One line naming the library and the package, exit 1 (the machine lacks
// something; the input is fine), and no store created.
TEST(CliStartup, ACpuRunWhoseBlasCannotLoadSaysWhichPackageAndWritesNothing) {
  const testing_files::TempDir tmp;
  tmp.Write("libopenblas.so.0", std::string(4096, 'x'));  // not an ELF file
  const Outcome o = CpuRunFindingBlasIn(tmp.dir().string());
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("cannot load libopenblas.so.0"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("install libopenblas0"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.Path("runs.db")));
}

TEST(CliStartup, ACpuRunWhoseBlasIsNotOpenBlasSaysSoAndWritesNothing) {
  const testing_files::TempDir tmp;
  std::filesystem::copy_file(std::string(BRAID_NOT_OPENBLAS_DIR) + "/libopenblas.so.0", tmp.Path("libopenblas.so.0"));
  const Outcome o = CpuRunFindingBlasIn(tmp.dir().string());
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("lacks cblas_sgemm"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.Path("runs.db")));
}

}  // namespace
}  // namespace braid
