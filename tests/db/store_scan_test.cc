// Store::ScanEvents and GetEventExtent: the streamed run is LoadEvents' run
// in the same order, batch by batch; a visitor's error ends the scan; a
// damaged count is still caught at the end.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "braid/store.h"
#include "store_test_util.h"

namespace braid {
namespace {

using testing::MakeEvents;
using testing::MakeLanes;
using testing::RawDb;
using testing::SampleMeta;
using testing::TempDir;

struct Stored {
  TempDir dir;
  std::unique_ptr<Store> store;
  int64_t run = 0;
  std::vector<Event> events;
  Stored() {
    auto s = Store::Open(dir.Path("runs.db"));
    EXPECT_TRUE(s.ok());
    store = std::move(*s);
    events = MakeEvents(3, 4, 2, 5);
    auto id = store->WriteRun(SampleMeta(), MakeLanes(4, 2), events, {});
    EXPECT_TRUE(id.ok());
    run = *id;
  }
};

bool SameEvent(const Event& a, const Event& b) {
  return a.rank == b.rank && a.lane == b.lane && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
         a.iteration == b.iteration && a.name == b.name && a.kind == b.kind && a.bytes == b.bytes &&
         a.correlation == b.correlation && a.peer == b.peer;
}

TEST(StoreScan, BatchesJoinToLoadEventsInOrderForAnyBatchSize) {
  Stored s;
  Result<std::vector<Event>> whole = s.store->LoadEvents(s.run);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->size(), s.events.size());
  for (size_t batch : {size_t(1), size_t(7), size_t(40), size_t(120), size_t(1000)}) {
    std::vector<Event> joined;
    size_t calls = 0, largest = 0;
    Status st = s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = batch, .ranks = std::nullopt},
                                    [&](std::span<const Event> b) {
                                      ++calls;
                                      largest = std::max(largest, b.size());
                                      joined.insert(joined.end(), b.begin(), b.end());
                                      return Status::Ok();
                                    });
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_LE(largest, batch);
    EXPECT_EQ(calls, (whole->size() + batch - 1) / batch) << "batch " << batch;
    ASSERT_EQ(joined.size(), whole->size());
    for (size_t i = 0; i < joined.size(); ++i) {
      EXPECT_TRUE(SameEvent(joined[i], (*whole)[i])) << "batch " << batch << " event " << i;
    }
  }
}

TEST(StoreScan, OneIterationKeepsOnlyItsEvents) {
  Stored s;
  size_t n = 0;
  Status st =
      s.store->ScanEvents(s.run, {.iteration = 1, .batch = 16, .ranks = std::nullopt}, [&](std::span<const Event> b) {
        for (const Event& e : b) {
          EXPECT_EQ(e.iteration, 1);
          ++n;
        }
        return Status::Ok();
      });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(n, s.events.size() / 3);
  Result<EventExtent> x = s.store->GetEventExtent(s.run, 1);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->count, int64_t(n));
  EXPECT_EQ(x->first_iteration, 1);
  EXPECT_EQ(x->last_iteration, 1);
  Result<EventExtent> none = s.store->GetEventExtent(s.run, 9);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->count, 0);
}

TEST(StoreScan, ExtentOfTheWholeRun) {
  Stored s;
  Result<EventExtent> x = s.store->GetEventExtent(s.run);
  ASSERT_TRUE(x.ok()) << x.status().message();
  int64_t first = s.events[0].start_ns;
  for (const Event& e : s.events) first = std::min(first, e.start_ns);
  EXPECT_EQ(x->count, int64_t(s.events.size()));
  EXPECT_EQ(x->first_start_ns, first);
  EXPECT_EQ(x->first_iteration, 0);
  EXPECT_EQ(x->last_iteration, 2);
  EXPECT_EQ(s.store->GetEventExtent(s.run + 5).status().code(), StatusCode::kNotFound);
}

TEST(StoreScan, AVisitorsErrorEndsTheScanAndIsReturned) {
  Stored s;
  int calls = 0;
  Status st = s.store->ScanEvents(
      s.run, {.iteration = std::nullopt, .batch = 10, .ranks = std::nullopt},
      [&](std::span<const Event>) { return ++calls == 2 ? Status::Unavailable("stop here") : Status::Ok(); });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(st.message(), "stop here");
}

TEST(StoreScan, ACountThatDisagreesWithTheRowsIsDamageFoundAtTheEnd) {
  Stored s;
  RawDb raw(s.store->path());
  ASSERT_EQ(raw.Exec("UPDATE runs SET event_count = event_count + 1 WHERE id = " + std::to_string(s.run)), "");
  size_t n = 0;
  Status st = s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = 16, .ranks = std::nullopt},
                                  [&](std::span<const Event> b) {
                                    n += b.size();
                                    return Status::Ok();
                                  });
  EXPECT_EQ(n, s.events.size());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("damaged store"), std::string::npos) << st.message();
}

// The buffer is reused: events moved out by one batch's visitor are
// written afresh for the next, names included.
TEST(StoreScan, AVisitorMayMoveTheEventsOut) {
  Stored s;
  Result<std::vector<Event>> whole = s.store->LoadEvents(s.run);
  ASSERT_TRUE(whole.ok());
  std::vector<Event> moved;
  Status st = s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = 3, .ranks = std::nullopt},
                                  [&](std::span<Event> b) {
                                    for (Event& e : b) moved.push_back(std::move(e));
                                    return Status::Ok();
                                  });
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(moved.size(), whole->size());
  for (size_t i = 0; i < moved.size(); ++i) EXPECT_TRUE(SameEvent(moved[i], (*whole)[i])) << i;
}

TEST(StoreScan, ARangeOfRanksKeepsOnlyThoseInOrder) {
  Stored s;
  Result<std::vector<Event>> whole = s.store->LoadEvents(s.run);
  ASSERT_TRUE(whole.ok());
  std::vector<Event> expected;
  for (const Event& e : *whole) {
    if (e.rank >= 1 && e.rank < 3) expected.push_back(e);
  }
  ASSERT_FALSE(expected.empty());
  std::vector<Event> got;
  Status st = s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = 5, .ranks = std::pair(1, 3)},
                                  [&](std::span<const Event> b) {
                                    got.insert(got.end(), b.begin(), b.end());
                                    return Status::Ok();
                                  });
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(SameEvent(got[i], expected[i])) << i;
  // With the iteration too; and a range holding no rank calls nothing.
  size_t n = 0;
  st =
      s.store->ScanEvents(s.run, {.iteration = 2, .batch = 5, .ranks = std::pair(3, 4)}, [&](std::span<const Event> b) {
        for (const Event& e : b) {
          EXPECT_EQ(e.rank, 3);
          EXPECT_EQ(e.iteration, 2);
          ++n;
        }
        return Status::Ok();
      });
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(n, s.events.size() / 3 / 4);
  int calls = 0;
  st = s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = 5, .ranks = std::pair(7, 9)},
                           [&](std::span<const Event>) {
                             ++calls;
                             return Status::Ok();
                           });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(calls, 0);
}

TEST(StoreScan, RankRangeIsTheLowestAndHighestRankWithEvents) {
  Stored s;
  auto range = s.store->GetEventRankRange(s.run);
  ASSERT_TRUE(range.ok()) << range.status().message();
  ASSERT_TRUE(range->has_value());
  EXPECT_EQ(**range, std::pair(0, 3));
  auto empty = s.store->WriteRun(SampleMeta(), {}, {}, {});
  ASSERT_TRUE(empty.ok());
  auto none = s.store->GetEventRankRange(*empty);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(s.store->GetEventRankRange(*empty + 1).status().code(), StatusCode::kNotFound);
}

TEST(StoreScan, AMissingRunIsNotFound) {
  Stored s;
  Status st = s.store->ScanEvents(s.run + 1, {}, [](std::span<const Event>) { return Status::Ok(); });
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace braid
