// What the braid command maps at start: OpenBLAS (and its Fortran runtime)
// only once a GEMM runs on the host, as cuBLASLt only once one runs on a
// GPU. Read from the dynamic loader's own list (LD_DEBUG=files).
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace braid
