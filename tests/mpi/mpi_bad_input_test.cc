// Bad input under mpirun: one line printed once (by rank 0), exit 2 on every
// rank (mpirun passes it on), nothing written.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

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

TEST(MpiBadInput, CommandsOtherThanRunAndTuneAreRefused) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("report.db");
  ExpectRefusedOnce(MpiBraid(2, "report --db " + db), "under mpirun only `braid run` and `braid tune` run", db);
}

// MPMD with a different command per rank: the job ends with one Braid line
// (not mpirun's own complaint alone) whichever rank runs which command.
TEST(MpiBadInput, RanksRunningDifferentCommandsEndWithOneLine) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("mixed.db");
  const std::string exe = BRAID_EXE;
  const std::string run = exe + " " + kRun + "--tp 2 --db " + db;
  const std::string report = exe + " report --db " + db;
  for (const auto& [first, second] : {std::pair{run, report}, std::pair{report, run}}) {
    SCOPED_TRACE(first + " : " + second);
    ExpectRefusedOnce(Shell(Mpirun(1) + first + " : -np 1 " + second), "rank 1: arguments differ from rank 0's", db);
  }
}

// tune: the same rules as run, checked before rank 0 creates the store or
// the preset file.
const std::string kTune = "tune --backend cpu --op gemm_rs --m 64 --n 32 --k 64 --strategy exhaustive --no-progress ";

void ExpectTuneRefusedOnce(const Outcome& o, const std::string& message, const std::string& db,
                           const std::string& out) {
  ExpectRefusedOnce(o, message, db);
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "no preset file";
}

TEST(MpiBadInput, TuneTpOtherThanTheWorldSize) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_tp.db"), out = TempPath("tune_tp.toml");
  ExpectTuneRefusedOnce(MpiBraid(3, kTune + "--tp 2 --db " + db + " --out " + out),
                        "--tp 2 must equal the number of MPI processes (3)", db, out);
}

TEST(MpiBadInput, TuneTpAboveOneWithOneProcess) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_one.db"), out = TempPath("tune_one.toml");
  ExpectTuneRefusedOnce(MpiBraid(1, kTune + "--tp 2 --db " + db + " --out " + out), "mpirun started 1", db, out);
}

TEST(MpiBadInput, TuneArgumentsThatDifferBetweenRanks) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_differ.db"), out = TempPath("tune_differ.toml");
  const std::string exe = BRAID_EXE, files = " --db " + db + " --out " + out;
  const Outcome o =
      Shell(std::string(BRAID_MPIRUN) + " --oversubscribe --allow-run-as-root -np 1 " + exe + " " + kTune +
            "--tp 2 --budget 3" + files + " : -np 1 " + exe + " " + kTune + "--tp 2 --budget 4" + files);
  ExpectTuneRefusedOnce(o, "rank 1: arguments differ from rank 0's", db, out);
}

TEST(MpiBadInput, TuneOfATrainingBlockIsRefusedBeforeAnyTrial) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_train.db"), out = TempPath("tune_train.toml");
  ExpectTuneRefusedOnce(MpiBraid(2,
                                 "tune --backend cpu --model llama3-8b --seq 64 --tp 2 --phase train --no-progress "
                                 "--db " +
                                     db + " --out " + out),
                        "tune --phase train under mpirun", db, out);
}

TEST(MpiBadInput, TuneTimeoutZeroOrNegative) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_timeout.db"), out = TempPath("tune_timeout.toml");
  for (const char* t : {"0", "-1"}) {
    ExpectTuneRefusedOnce(MpiBraid(2, kTune + "--tp 2 --timeout " + t + " --db " + db + " --out " + out),
                          "--timeout must be a positive number of seconds", db, out);
  }
}

TEST(MpiBadInput, TuneBackendOtherThanCpu) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_sim.db"), out = TempPath("tune_sim.toml");
  ExpectTuneRefusedOnce(
      MpiBraid(2, "tune --backend sim --op gemm_rs --m 64 --n 32 --k 64 --tp 2 --db " + db + " --out " + out),
      "on --backend cpu only", db, out);
}

// Found by rank 0 alone (the store is its file): still one line, exit 2 on every rank.
TEST(MpiBadInput, TuneResumeWithoutAStore) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tune_resume.db"), out = TempPath("tune_resume.toml");
  ExpectTuneRefusedOnce(MpiBraid(2, kTune + "--tp 2 --resume --db " + db + " --out " + out),
                        "--resume: there is no store", db, out);
}

TEST(MpiBadInput, HelpGivesTheTimeoutDefaultUnderMpirun) {
  BRAID_SKIP_WITHOUT_MPI();
  for (const char* cmd : {"run", "tune"}) {
    const Outcome o = braid::testing_mpi::Braid(std::string(cmd) + " --help");
    EXPECT_EQ(o.code, 0);
    EXPECT_THAT(o.out, HasSubstr("under mpirun: seconds a rank waits for a peer (default 300)")) << cmd;
  }
}

}  // namespace
