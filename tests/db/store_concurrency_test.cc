// A reader with its own Store lists and loads runs while a writer writes:
// it never sees a partial run and is never refused.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "braid/store.h"
#include "store_test_util.h"

namespace braid {
namespace {

using testing::MakeEvents;
using testing::SampleMeta;
using testing::TempDir;

TEST(StoreConcurrency, ReaderListsWhileWriterWrites) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  Result<std::unique_ptr<Store>> writer = Store::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();

  constexpr int kRuns = 12;
  const std::vector<Event> events = MakeEvents(10, 4, 2, 500);  // 40,000 per run
  std::atomic<bool> done{false};
  std::atomic<int> reads_during_writes{0};
  Status reader_status;
  std::string reader_problem;

  std::thread reader([&] {
    Result<std::unique_ptr<Store>> store = Store::Open(path, /*read_only=*/true);
    if (!store.ok()) {
      reader_status = store.status();
      return;
    }
    size_t seen = 0;
    while (!done.load()) {
      Result<std::vector<StoredRun>> runs = (*store)->ListRuns();
      if (!runs.ok()) {
        reader_status = runs.status();
        return;
      }
      if (runs->size() < seen) reader_problem = "a listed run disappeared";
      seen = runs->size();
      if (!runs->empty()) {
        const StoredRun& last = runs->back();
        Result<std::vector<Event>> loaded = (*store)->LoadEvents(last.id);
        if (!loaded.ok()) {
          reader_status = loaded.status();
          return;
        }
        if (last.event_count != int64_t(events.size()) || loaded->size() != events.size()) {
          reader_problem =
              "run " + std::to_string(last.id) + " was visible with " + std::to_string(loaded->size()) + " events";
        }
      }
      if (!done.load() && seen < size_t(kRuns)) ++reads_during_writes;
    }
  });

  for (int i = 0; i < kRuns; ++i) {
    Result<int64_t> id = (*writer)->WriteRun(SampleMeta(), {}, events, {});
    ASSERT_TRUE(id.ok()) << id.status().message();
  }
  done = true;
  reader.join();

  EXPECT_TRUE(reader_status.ok()) << reader_status.message();
  EXPECT_EQ(reader_problem, "");
  EXPECT_GT(reads_during_writes.load(), 0);
  Result<std::vector<StoredRun>> runs = (*writer)->ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), size_t(kRuns));
}

// Processes that all start on the same fresh path at once: every one
// creates-or-opens the store (none is told it is "not a Braid store" or
// "locked") and writes its runs, so the store ends with all of them. Each
// round uses a new path, so the creation race is run again. (Before creation
// ran under SQLite's locking, 12 processes lost a store or a run in about
// one of two runs of this test.)
TEST(StoreConcurrency, ConcurrentCreatorsAllSucceedAndKeepEveryRun) {
  constexpr int kProcs = 12, kRunsEach = 1, kRounds = 12;
  TempDir dir;
  const std::vector<Event> events = MakeEvents(2, 2, 2, 20);
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.Path("fresh" + std::to_string(round) + ".db");
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    int report[2];  // children write their error messages here
    ASSERT_EQ(::pipe(report), 0);
    std::vector<pid_t> kids;
    for (int i = 0; i < kProcs; ++i) {
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(gate[1]);
        char c;
        while (::read(gate[0], &c, 1) > 0) {
        }  // released when the parent closes its end
        auto fail = [&](const Status& s) {
          const std::string line = s.message() + "\n";
          if (::write(report[1], line.data(), line.size()) < 0) ::_exit(3);
          ::_exit(1);
        };
        Result<std::unique_ptr<Store>> store = Store::Open(path);
        if (!store.ok()) fail(store.status());
        for (int r = 0; r < kRunsEach; ++r) {
          Result<int64_t> id = (*store)->WriteRun(SampleMeta(), {}, events, {});
          if (!id.ok()) fail(id.status());
        }
        store->reset();
        ::_exit(0);
      }
      kids.push_back(pid);
    }
    ::close(gate[0]);
    ::close(report[1]);
    ::close(gate[1]);  // go
    int failed = 0;
    for (pid_t k : kids) {
      int status = 0;
      ASSERT_EQ(::waitpid(k, &status, 0), k);
      failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    std::string messages;
    char buf[512];
    for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) messages.append(buf, size_t(n));
    ::close(report[0]);
    EXPECT_EQ(failed, 0) << messages;
    Result<std::unique_ptr<Store>> store = Store::Open(path, /*read_only=*/true);
    ASSERT_TRUE(store.ok()) << store.status().message();
    Result<std::vector<StoredRun>> runs = (*store)->ListRuns();
    ASSERT_TRUE(runs.ok()) << runs.status().message();
    EXPECT_EQ(runs->size(), size_t(kProcs * kRunsEach)) << "round " << round;
  }
}

}  // namespace
}  // namespace braid
