// The cuda backend under real mpirun, without a GPU: the Bootstrap adapter
// over the MPI launcher (cuda_bootstrap_mpi_main.cc), and braid run
// --backend cuda's refusals, printed once, the same exit code on every rank.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "mpi_runner.h"

namespace {

using braid::testing_mpi::LinesWith;
using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Mpirun;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::Shell;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

const std::string kRun = "run --backend cuda --op ag_gemm --m 64 --n 32 --k 64 --algo ring --iters 1 --warmup 0 ";

TEST(CudaMpi, BootstrapAdapterOverTheMpiLauncher) {
  BRAID_SKIP_WITHOUT_MPI();
  for (int np : {2, 3}) {
    const Outcome o = Shell(Mpirun(np) + BRAID_CUDA_BOOTSTRAP_MPI);
    EXPECT_EQ(o.code, 0) << o.out << o.err;
    EXPECT_EQ(LinesWith(o.out, "ok rank"), np) << o.out << o.err;
  }
}

TEST(CudaMpi, TpOtherThanTheWorldIsRefusedOnce) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("cuda_tp.db");
  const Outcome o = MpiBraid(2, kRun + "--tp 4 --db " + db);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LinesWith(o.err, "braid"), 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--tp 4 must equal the number of MPI processes (2)"));
  EXPECT_NE(access(db.c_str(), F_OK), 0) << "nothing written";
}

// This machine has no GPU (a machine with one skips): one line, exit 1, nothing written.
TEST(CudaMpi, NoGpuIsOneLineAndExitOne) {
  BRAID_SKIP_WITHOUT_MPI();
  if (access("/dev/nvidia0", F_OK) == 0) GTEST_SKIP() << "a GPU is present";
  const std::string db = TempPath("cuda_nogpu.db");
  const Outcome o = MpiBraid(2, kRun + "--tp 2 --db " + db);
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(LinesWith(o.err, "braid"), 1) << o.err;
  EXPECT_THAT(o.err, ::testing::AnyOf(HasSubstr("no usable CUDA device"), HasSubstr("no CUDA device"),
                                      HasSubstr("built without CUDA")));
  EXPECT_NE(access(db.c_str(), F_OK), 0) << "nothing written";
}

}  // namespace
