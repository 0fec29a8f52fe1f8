// A writer killed with SIGKILL in the middle of a run leaves no trace of it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "braid/store.h"
#include "store_test_util.h"

namespace braid {
namespace {

using testing::MakeEvents;
using testing::RawDb;
using testing::SampleMeta;
using testing::TempDir;

uintmax_t FileSize(const std::string& path) {
  std::error_code ec;
  const uintmax_t n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

TEST(StoreCrash, KillDuringWriteLeavesNoHalfWrittenRun) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  const std::vector<Event> small = MakeEvents(2, 2, 2, 10);
  int64_t first = 0;
  {
    Result<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    Result<int64_t> id = (*store)->WriteRun(SampleMeta(), {}, small, {});
    ASSERT_TRUE(id.ok()) << id.status().message();
    first = *id;
  }

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child: open, build a big run (2.4M events, ~110 MB of pages, well
    // over the store's 64 MiB page cache, so SQLite spills uncommitted pages
    // into the WAL about half-way through the inserts), say so, write it. It
    // is killed long before it could commit.
    close(ready[0]);
    Result<std::unique_ptr<Store>> store = Store::Open(path);
    if (!store.ok()) _exit(3);
    const std::vector<Event> big = MakeEvents(100, 8, 3, 1000, 500);
    if (write(ready[1], "w", 1) != 1) _exit(4);
    const bool ok = (*store)->WriteRun(SampleMeta(), {}, big, {}).ok();
    _exit(ok ? 0 : 5);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);

  // Kill once the uncommitted run has put 4 MB of frames into the WAL.
  const std::string wal = path + "-wal";
  const uintmax_t start = FileSize(wal);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool exited = false;
  while (FileSize(wal) < start + (4u << 20) && std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    if (waitpid(child, &st, WNOHANG) == child) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  const uintmax_t wal_at_kill = FileSize(wal);
  ASSERT_FALSE(exited) << "the writer finished before it could be killed";
  kill(child, SIGKILL);
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  EXPECT_GE(wal_at_kill, start + (4u << 20)) << "killed before the run reached the WAL";

  {
    RawDb raw(path);  // recovers from the WAL the dead writer left
    EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(raw.Text("PRAGMA foreign_key_check"), "");
    EXPECT_EQ(raw.Int("SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), int64_t(small.size()));
    EXPECT_EQ(raw.Int("SELECT count(*) FROM strings WHERE text LIKE '% 499'"),
              0);  // only the big run used it
  }
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<std::vector<StoredRun>> runs = (*store)->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].id, first);
  // The store keeps working.
  Result<int64_t> next = (*store)->WriteRun(SampleMeta(), {}, small, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  Result<std::vector<Event>> events = (*store)->LoadEvents(*next);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->size(), small.size());
}

}  // namespace
}  // namespace braid
