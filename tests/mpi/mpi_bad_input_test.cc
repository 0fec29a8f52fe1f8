// Bad input under mpirun: one line printed once (by rank 0), exit 2 on every
// rank (mpirun passes it on), nothing written.
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

const std::string kRun = "run --backend cpu --op gemm_rs --m 64 --n 32 --k 64 --algo ring --iters 1 --warmup 0 ";

void ExpectRefusedOnce(const Outcome& o, const std::string& message, const std::string& db) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(LinesWith(o.err, "braid"), 1) << "printed once: " << o.err;
  EXPECT_THAT(o.err, HasSubstr(message));
  EXPECT_EQ(o.out, "");
  EXPECT_NE(access(db.c_str(), F_OK), 0) << "nothing written";
}

TEST(MpiBadInput, TpOtherThanTheWorldSize) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tp.db");
  ExpectRefusedOnce(MpiBraid(3, kRun + "--tp 2 --db " + db), "--tp 2 must equal the number of MPI processes (3)", db);
}

TEST(MpiBadInput, TpAboveOneWithOneProcess) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("one.db");
  ExpectRefusedOnce(MpiBraid(1, kRun + "--tp 2 --db " + db), "mpirun started 1", db);
}

TEST(MpiBadInput, ArgumentsThatDifferBetweenRanks) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("differ.db");
  const std::string exe = BRAID_EXE;
  // MPMD: rank 0 and rank 1 get different --seed values.
  const Outcome o = Shell(std::string(BRAID_MPIRUN) + " --oversubscribe --allow-run-as-root -np 1 " + exe + " " + kRun +
                          "--tp 2 --seed 1 --db " + db + " : -np 1 " + exe + " " + kRun + "--tp 2 --seed 2 --db " + db);
  ExpectRefusedOnce(o, "rank 1: arguments differ from rank 0's", db);
}

TEST(MpiBadInput, TimeoutZeroOrNegative) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("timeout.db");
  for (const char* t : {"0", "-1"}) {
    ExpectRefusedOnce(MpiBraid(2, kRun + "--tp 2 --timeout " + t + " --db " + db),
                      "--timeout must be a positive number of seconds", db);
  }
}

TEST(MpiBadInput, ParseErrorsArePrintedByRankZeroOnly) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("parse.db");
  ExpectRefusedOnce(MpiBraid(2, kRun + "--tp 2 --no-such-flag --db " + db), "no-such-flag", db);
}

TEST(MpiBadInput, CommandsOtherThanRunAreRefused) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune.db");
  ExpectRefusedOnce(MpiBraid(2, "tune --backend sim --op gemm_rs --m 64 --n 32 --k 64 --tp 2 --db " + db + " --out " +
                                    TempPath("tune.toml")),
                    "under mpirun only `braid run` runs", db);
}

}  // namespace
