// Faults under mpirun: a killed rank and a transfer that never arrives stop
// the whole job in bounded time with one message, and runs stored before
// the fault stay intact.
#include <signal.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "mpi_runner.h"

namespace {

using braid::testing_mpi::FindRank;
using braid::testing_mpi::LinesWith;
using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Mpirun;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::QueryOne;
using braid::testing_mpi::Shell;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

const std::string kSmall = "run --backend cpu --op gemm_rs --m 96 --n 32 --k 96 --tp 3 --algo ring ";

// Sends `sig` to rank `rank` of the braid job whose command line holds
// `marker`, `delay_ms` after it appears (60 s at most to appear).
std::thread SignalRank(const std::string& marker, int rank, int sig, int delay_ms) {
  return std::thread([marker, rank, sig, delay_ms] {
    for (int i = 0; i < 600; ++i) {
      if (const pid_t pid = FindRank(marker, rank)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        kill(pid, sig);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

TEST(MpiFaults, KilledRankStopsTheJobNamingItAndTheStoreStaysIntact) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("killed.db");
  std::remove(db.c_str());
  const Outcome first = MpiBraid(3, kSmall + "--iters 2 --warmup 1 --db " + db);
  ASSERT_EQ(first.code, 0) << first.err;
  // A long run (a million iterations), killed once rank 1 is up.
  std::thread killer = SignalRank(db, 1, SIGKILL, 300);
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = Shell(Mpirun(3) + BRAID_EXE + " " + kSmall + "--iters 500000 --warmup 0 --timeout 300 --db " + db);
  killer.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(o.code, 0);
  EXPECT_LT(seconds, 60) << "the others stop in bounded time, long before --timeout";
  EXPECT_THAT(o.err, HasSubstr("rank 1"));
  EXPECT_EQ(LinesWith(o.err, "Killed"), 1) << o.err;
  EXPECT_EQ(QueryOne(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryOne(db, "SELECT count(*) FROM runs"), "1") << "the first run is kept, the killed one wrote nothing";
  std::remove(db.c_str());
}

TEST(MpiFaults, TimeoutNamesRankStepPeerAndBytesOnce) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("timeout.db");
  std::remove(db.c_str());
  const std::string run = "run --backend cpu --op gemm_rs --m 64 --n 32 --k 64 --tp 2 --algo ring ";
  const Outcome first = MpiBraid(2, run + "--iters 1 --warmup 0 --db " + db);
  ASSERT_EQ(first.code, 0) << first.err;
  // Each rank sends its 32x32 floats (4096 B) and then receives its peer's.
  // At 0.0001 Gbit/s a send holds the link 0.33 s, so a rank spends nearly
  // all its time there, before its message leaves. Rank 1 is stopped (as a
  // hung process would be) during such a send: rank 0 then waits for its
  // 4096 bytes past the 2 s timeout.
  std::thread stopper = SignalRank(db, 1, SIGSTOP, 1500);
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = MpiBraid(2, run + "--iters 500000 --warmup 0 --link-gbps 0.0001 --timeout 2 --db " + db);
  stopper.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(o.code, 0) << o.err;
  EXPECT_LT(seconds, 60);
  EXPECT_EQ(LinesWith(o.err, "timed out"), 1) << o.err;
  EXPECT_THAT(o.err, ::testing::ContainsRegex("braid run: rank 0 lane [0-9]+ step [0-9]+ \\([^)]*\\): "
                                              "timed out after 2 s waiting for 4096 bytes from rank 1"))
      << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(QueryOne(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(QueryOne(db, "SELECT count(*) FROM runs"), "1");
  std::remove(db.c_str());
}

// A timeout so short that every wait ends in it leaves nonblocking
// collectives in flight; their buffers must outlive them and the job must
// end through MPI_Abort, not MPI_Finalize: before, about one run in two
// corrupted the heap (a segfault or "malloc(): unaligned tcache chunk" in
// MPI_Finalize, or NBC_Progress under MPI_Test). Repeated, since it was a race.
TEST(MpiFaults, TinyTimeoutsEndEveryRunCleanly) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string db = TempPath("tiny_timeout.db");
  int crashes = 0;
  for (int i = 0; i < 50; ++i) {
    std::remove(db.c_str());
    const char* timeout = i % 2 == 0 ? "1e-9" : "1e-6";
    const Outcome o = MpiBraid(2, std::string("run --backend cpu --model llama3-8b --seq 64 --tp 2 --phase train "
                                              "--algo bulk --iters 2 --db ") +
                                      db + " --timeout " + timeout);
    SCOPED_TRACE(std::to_string(i) + ": " + o.err);
    EXPECT_EQ(o.code, 1);
    EXPECT_EQ(LinesWith(o.err, "braid run: "), 1);
    for (const char* crash :
         {"Segmentation", "Signal: ", "signal 11", "signal 6", "malloc", "free()", "corrupted", "Sanitizer"}) {
      if (o.err.find(crash) != std::string::npos) ++crashes;
      EXPECT_EQ(o.err.find(crash), std::string::npos) << crash;
    }
  }
  EXPECT_EQ(crashes, 0);
  std::remove(db.c_str());
}

}  // namespace
