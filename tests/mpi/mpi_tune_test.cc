// `mpirun -np P braid tune --backend cpu`: rank 0 drives the search and every
// rank runs each candidate; the session has the structure of the thread
// mode's, only rank 0 writes, and a session whose rank 0 was killed resumes
// under mpirun with every recorded trial reused.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "mpi_runner.h"

namespace {

using braid::testing_mpi::Braid;
using braid::testing_mpi::FindRank;
using braid::testing_mpi::LinesWith;
using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::QueryOne;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

struct Files {
  explicit Files(const std::string& name) : db(TempPath(name + ".db")), out(TempPath(name + ".toml")) {
    std::remove(db.c_str());
    std::remove(out.c_str());
  }
  ~Files() {
    std::remove(db.c_str());
    std::remove(out.c_str());
  }
  std::string Args() const { return " --db " + db + " --out " + out; }
  std::string db, out;
};

long long Count(const std::string& db, const std::string& sql) {
  const std::string v = QueryOne(db, sql);
  return v.empty() ? -1 : std::stoll(v);
}

std::set<std::string> Keys(const std::string& db, const std::string& stage) {
  std::set<std::string> keys;
  const std::string all =
      QueryOne(db, "SELECT group_concat(trial_key, char(10)) FROM trials WHERE trial_key LIKE '%|" + stage + "'");
  size_t at = 0;
  while (at < all.size()) {
    const size_t end = all.find('\n', at);
    keys.insert(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return keys;
}

// Every trial once, each with its own stored run, in one finished session.
void ExpectEveryTrialStoredOnce(const std::string& db, const nlohmann::json& j) {
  const long long trials = j["trials"].get<long long>();
  EXPECT_GT(trials, 0);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), trials);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT trial_key) FROM trials"), trials);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT run) FROM trials WHERE run IS NOT NULL"), trials);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs"), trials) << "no run without its trial";
  EXPECT_EQ(Count(db, "SELECT count(*) FROM tuning_sessions WHERE status = 'done'"), 1);
  EXPECT_EQ(QueryOne(db, "PRAGMA integrity_check"), "ok");
}

// Small enough for a shared 2-core host; exhaustive, so every candidate is
// measured in full whatever the timings (only the rechecks depend on them).
std::string Request(int np) {
  return "tune --backend cpu --op gemm_rs --m " + std::to_string(32 * np) + " --n 32 --k " + std::to_string(32 * np) +
         " --tp " + std::to_string(np) + " --strategy exhaustive --iters 2 --warmup 0 --no-progress --json";
}

TEST(MpiTune, SameSessionStructureAsRanksAsThreads) {
  BRAID_SKIP_WITHOUT_MPI();
  Files threads("tune_threads"), procs("tune_procs");
  const Outcome t = Braid(Request(2) + threads.Args());
  ASSERT_EQ(t.code, 0) << t.err;
  const Outcome p = MpiBraid(2, Request(2) + procs.Args());
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.err, "") << "with --no-progress a good tune prints nothing on stderr, on any rank";
  const auto jt = nlohmann::json::parse(t.out), jp = nlohmann::json::parse(p.out);  // one object: rank 0's
  EXPECT_EQ(jp["session"], 1);
  ASSERT_EQ(jt["results"].size(), jp["results"].size());
  for (size_t i = 0; i < jt["results"].size(); ++i) EXPECT_EQ(jt["results"][i]["op"], jp["results"][i]["op"]);
  EXPECT_EQ(jp["measured"], jp["trials"]);
  EXPECT_EQ(jp["replayed"], 0);
  ExpectEveryTrialStoredOnce(threads.db, jt);
  ExpectEveryTrialStoredOnce(procs.db, jp);
  // The same candidates were measured in full; rechecks follow the timings.
  const std::set<std::string> full = Keys(threads.db, "full");
  EXPECT_GE(full.size(), 2u);
  EXPECT_EQ(full, Keys(procs.db, "full"));
  // Each trial's run has every rank's events, on the processes' aligned clocks.
  EXPECT_EQ(Count(procs.db, "SELECT count(DISTINCT rank) FROM events"), 2);
  EXPECT_EQ(Count(procs.db, "SELECT count(*) FROM runs WHERE notes_json LIKE '%2 ranks as MPI processes%'"),
            jp["trials"].get<long long>());
  // The winners went into the preset file.
  EXPECT_THAT(braid::testing_mpi::ReadAll(procs.out), HasSubstr("gemm_rs"));
}

// Starts `mpirun -np np braid ARGS` and kills rank 0 with SIGKILL once
// `after` trials are in the store. Returns what mpirun printed and its exit
// status; *recorded: the trials stored at the kill.
Outcome TuneAndKillRankZero(int np, const std::string& args, const std::string& db, long long after,
                            long long* recorded, bool* killed) {
  *killed = false;
  std::thread killer([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    pid_t pid = 0;
    while (std::chrono::steady_clock::now() < give_up) {
      if (pid == 0) pid = FindRank(db, 0);  // found first, so that the kill follows the count at once
      if (pid != 0 && Count(db, "SELECT count(*) FROM trials") >= after) {
        *killed = kill(pid, SIGKILL) == 0;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  Outcome o = MpiBraid(np, args);
  killer.join();
  *recorded = Count(db, "SELECT count(*) FROM trials");
  return o;
}

TEST(MpiTune, KilledRankZeroThenResumeUnderMpirunReusesEveryRecordedTrial) {
  BRAID_SKIP_WITHOUT_MPI();
  Files f("tune_killed");
  // Paced transfers keep the search long enough to be caught in the middle,
  // whatever the machine's speed: at 0.005 Gbit/s each rank's 4 KiB block
  // takes 6.5 ms a hop, so the 20-odd trials after the third take seconds.
  const std::string args = Request(3) + " --link-gbps 0.005" + f.Args();
  long long at_kill = 0;
  bool killed = false;
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = TuneAndKillRankZero(3, args, f.db, 3, &at_kill, &killed);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(killed) << "the tune finished before rank 0 could be killed: " << o.out << o.err;
  EXPECT_NE(o.code, 0);
  EXPECT_LT(seconds, 110) << "the other ranks stop in bounded time";
  EXPECT_EQ(LinesWith(o.err, "rank 0"), 1) << "one message naming the dead rank: " << o.err;
  EXPECT_EQ(LinesWith(o.err, "Killed"), 1) << o.err;
  EXPECT_EQ(o.out, "") << "nothing printed before the end";
  EXPECT_EQ(QueryOne(f.db, "PRAGMA integrity_check"), "ok");
  EXPECT_GE(at_kill, 3);
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions WHERE status = 'running'"), 1);
  EXPECT_EQ(access(f.out.c_str(), F_OK), -1) << "presets are written only at the end";

  const Outcome resumed = MpiBraid(3, args + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(resumed.err, "");
  const auto j = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(j["session"], 1) << "the killed session continued, no new one";
  EXPECT_EQ(j["replayed"].get<long long>(), at_kill) << "every trial recorded before the kill was reused";
  EXPECT_EQ(j["measured"].get<long long>() + at_kill, j["trials"].get<long long>()) << "none measured twice";
  ExpectEveryTrialStoredOnce(f.db, j);
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions"), 1);
}

// Rank 0 stops (as a hung process would) in the middle of the search: the
// others give up after --timeout with one message naming rank 0, and the
// trials stored so far stay intact.
TEST(MpiTune, StoppedRankZeroTimesOutTheOthersNamingIt) {
  BRAID_SKIP_WITHOUT_MPI();
  Files f("tune_stopped");
  const std::string args = Request(2) + " --link-gbps 0.005 --timeout 2" + f.Args();
  std::thread stopper([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    pid_t pid = 0;
    while (std::chrono::steady_clock::now() < give_up) {
      if (pid == 0) pid = FindRank(f.db, 0);
      if (pid != 0 && Count(f.db, "SELECT count(*) FROM trials") >= 2) {
        kill(pid, SIGSTOP);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = MpiBraid(2, args);
  stopper.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(o.code, 0);
  EXPECT_LT(seconds, 60) << "bounded by --timeout, not by the search";
  EXPECT_EQ(LinesWith(o.err, "braid tune: rank 1"), 1) << o.err;
  EXPECT_THAT(o.err, ::testing::ContainsRegex("braid tune: rank 1[^\n]* 2 s [^\n]*rank 0")) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(QueryOne(f.db, "PRAGMA integrity_check"), "ok");
  EXPECT_GE(Count(f.db, "SELECT count(*) FROM trials"), 2);
}

}  // namespace
