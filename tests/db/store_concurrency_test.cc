// A reader with its own Store lists and loads runs while a writer writes:
// it never sees a partial run and is never refused.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

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
          reader_problem = "run " + std::to_string(last.id) + " was visible with " +
                           std::to_string(loaded->size()) + " events";
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

}  // namespace
}  // namespace braid
