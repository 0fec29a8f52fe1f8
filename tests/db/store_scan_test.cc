// Store::ScanEvents and GetEventExtent: the streamed run is LoadEvents' run
// in the same order, batch by batch; a visitor's error ends the scan; a
// damaged count is still caught at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
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

TEST(StoreScan, WithoutDetailsTheDrawnFieldsAreReadAndTheRestLeftAtDefaults) {
  Stored s;
  std::vector<Event> got;
  // Batches of 3 reuse the buffer: details read for no event must not leak into the next.
  Status st =
      s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = 3, .ranks = std::nullopt, .details = false},
                          [&](std::span<const Event> b) {
                            got.insert(got.end(), b.begin(), b.end());
                            return Status::Ok();
                          });
  ASSERT_TRUE(st.ok()) << st.message();
  auto all = s.store->LoadEvents(s.run);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(got.size(), all->size());
  const Event none;
  for (size_t i = 0; i < got.size(); ++i) {
    const Event &a = got[i], &b = (*all)[i];
    EXPECT_TRUE(a.rank == b.rank && a.lane == b.lane && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
                a.iteration == b.iteration && a.name == b.name && a.kind == b.kind && a.correlation == b.correlation)
        << i;
    EXPECT_TRUE(a.bytes == none.bytes && a.flops == none.flops && a.chunk == none.chunk && a.step == none.step &&
                a.peer == none.peer)
        << i;
  }
  // The stored run has details to leave out.
  EXPECT_TRUE(std::any_of(all->begin(), all->end(), [](const Event& e) { return e.bytes > 0 && e.peer >= 0; }));
}

// The drawn scan hands over ScanEvents' rows in the same order, each name
// an index into a table of distinct names that only grows.
TEST(StoreScan, DrawnRowsAreTheEventsWithTheirNamesIndexed) {
  Stored s;
  auto all = s.store->LoadEvents(s.run);
  ASSERT_TRUE(all.ok());
  for (size_t batch : {size_t(1), size_t(3), size_t(1000)}) {
    std::vector<Store::DrawnEventRow> got;
    std::vector<std::string> names;
    Status st = s.store->ScanDrawnEvents(
        s.run, {.iteration = std::nullopt, .batch = batch, .ranks = std::nullopt},
        [&](std::span<const Store::DrawnEventRow> b, const std::vector<std::string>& n) {
          EXPECT_LE(b.size(), batch);
          // Earlier names keep their places.
          EXPECT_TRUE(std::equal(names.begin(), names.end(), n.begin(), n.begin() + ptrdiff_t(names.size())));
          names = n;
          for (const Store::DrawnEventRow& row : b) EXPECT_LT(size_t(row.name), n.size());
          got.insert(got.end(), b.begin(), b.end());
          return Status::Ok();
        });
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(got.size(), all->size());
    for (size_t i = 0; i < got.size(); ++i) {
      const Store::DrawnEventRow& a = got[i];
      const Event& b = (*all)[i];
      EXPECT_TRUE(a.rank == b.rank && a.lane == b.lane && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
                  a.iteration == b.iteration && names[size_t(a.name)] == b.name && a.kind == b.kind &&
                  a.correlation == b.correlation)
          << i;
    }
    // One entry per distinct name.
    std::vector<std::string> distinct = names;
    std::sort(distinct.begin(), distinct.end());
    EXPECT_EQ(std::unique(distinct.begin(), distinct.end()), distinct.end());
    EXPECT_LT(names.size(), got.size());
  }
}

TEST(StoreScan, DrawnRowsOfARangeOfRanksAndAVisitorsError) {
  Stored s;
  size_t n = 0;
  Status st = s.store->ScanDrawnEvents(s.run, {.iteration = 2, .batch = 5, .ranks = std::pair(3, 4)},
                                       [&](std::span<const Store::DrawnEventRow> b, const std::vector<std::string>&) {
                                         for (const Store::DrawnEventRow& row : b) {
                                           EXPECT_EQ(row.rank, 3);
                                           EXPECT_EQ(row.iteration, 2);
                                           ++n;
                                         }
                                         return Status::Ok();
                                       });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(n, s.events.size() / 3 / 4);
  int calls = 0;
  st = s.store->ScanDrawnEvents(s.run, {.iteration = std::nullopt, .batch = 10, .ranks = std::nullopt},
                                [&](std::span<const Store::DrawnEventRow>, const std::vector<std::string>&) {
                                  return ++calls == 2 ? Status::Unavailable("stop here") : Status::Ok();
                                });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(st.message(), "stop here");
}

// The drawn scan walks the run lane by lane: keys with gaps, negative
// ranks and lanes, and ranges that cut between them give ScanEvents' rows.
TEST(StoreScan, DrawnRowsWalkLanesWithGapsAndNegativeKeys) {
  TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());
  std::vector<Event> events = MakeEvents(2, 1, 1, 3);
  std::vector<Event> all;
  for (int rank : {-2, 0, 3}) {
    for (int lane : {-1, 0, 9}) {
      if (rank == 0 && lane == 0) continue;  // a rank without lane 0
      for (Event e : events) {
        e.rank = rank;
        e.lane = lane;
        all.push_back(e);
      }
    }
  }
  auto id = (*store)->WriteRun(SampleMeta(), {}, all, {});
  ASSERT_TRUE(id.ok()) << id.status().message();
  using Range = std::optional<std::pair<int, int>>;
  for (const Range& ranks : {Range(), Range({-2, 1}), Range({-1, 3}), Range({0, 1}), Range({1, 3}), Range({3, 4})}) {
    for (std::optional<int> iteration : {std::optional<int>(), std::optional<int>(1)}) {
      SCOPED_TRACE(ranks ? std::to_string(ranks->first) + ".." + std::to_string(ranks->second) : "all");
      const Store::EventScan scan{.iteration = iteration, .batch = 4, .ranks = ranks};
      std::vector<Event> want;
      ASSERT_TRUE((*store)
                      ->ScanEvents(*id, scan,
                                   [&](std::span<const Event> b) {
                                     want.insert(want.end(), b.begin(), b.end());
                                     return Status::Ok();
                                   })
                      .ok());
      std::vector<std::pair<Store::DrawnEventRow, std::string>> got;
      Status st = (*store)->ScanDrawnEvents(
          *id, scan, [&](std::span<const Store::DrawnEventRow> b, const std::vector<std::string>& names) {
            for (const Store::DrawnEventRow& row : b) got.emplace_back(row, names[size_t(row.name)]);
            return Status::Ok();
          });
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        const auto& [a, name] = got[i];
        const Event& b = want[i];
        EXPECT_TRUE(a.rank == b.rank && a.lane == b.lane && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
                    a.iteration == b.iteration && name == b.name && a.kind == b.kind && a.correlation == b.correlation)
            << i;
      }
    }
  }
}

// Damage is the same one-line error as ScanEvents gives: a count that
// disagrees, a kind out of range, a name the strings table lacks.
TEST(StoreScan, ADamagedRunIsTheSameOneLineErrorForTheDrawnScan) {
  auto drawn = [](const Stored& s) {
    return s.store->ScanDrawnEvents(
        s.run, {.iteration = std::nullopt, .batch = 16, .ranks = std::nullopt},
        [](std::span<const Store::DrawnEventRow>, const std::vector<std::string>&) { return Status::Ok(); });
  };
  auto whole = [](const Stored& s) {
    return s.store->ScanEvents(s.run, {.iteration = std::nullopt, .batch = 16, .ranks = std::nullopt},
                               [](std::span<const Event>) { return Status::Ok(); });
  };
  for (const char* damage :
       {"UPDATE runs SET event_count = event_count + 1",
        "PRAGMA ignore_check_constraints = ON; UPDATE events SET kind = 9 WHERE rank = 2",
        "PRAGMA foreign_keys = OFF; DELETE FROM strings WHERE id = (SELECT MAX(name_id) FROM events)"}) {
    SCOPED_TRACE(damage);
    Stored s;
    {
      RawDb raw(s.store->path());
      ASSERT_EQ(raw.Exec(damage), "");
    }
    const Status a = drawn(s), b = whole(s);
    EXPECT_EQ(a.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(a.message().find("damaged store"), std::string::npos) << a.message();
    EXPECT_EQ(a.message().find('\n'), std::string::npos);
    EXPECT_EQ(a.message(), b.message());
  }
}

TEST(StoreGetEvent, EachEventIsFoundByItsLaneStartAndOrdinal) {
  TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());
  std::vector<Event> events = MakeEvents(2, 2, 2, 3);
  // Three events start together on rank 1 lane 0: told apart by their ordinal.
  for (int i = 0; i < 3; ++i) {
    Event e = events.back();
    e.rank = 1;
    e.lane = 0;
    e.start_ns = 5;
    e.end_ns = 6 + i;
    e.bytes = 1000 + i;
    events.push_back(e);
  }
  auto run = (*store)->WriteRun(SampleMeta(), MakeLanes(2, 2), events, {});
  ASSERT_TRUE(run.ok());
  auto all = (*store)->LoadEvents(*run);
  ASSERT_TRUE(all.ok());
  for (size_t i = 0; i < all->size(); ++i) {
    const Event& want = (*all)[i];
    int64_t ordinal = 0;
    for (size_t j = i; j > 0 && (*all)[j - 1].rank == want.rank && (*all)[j - 1].lane == want.lane &&
                       (*all)[j - 1].start_ns == want.start_ns;
         --j) {
      ++ordinal;
    }
    auto got = (*store)->GetEvent(*run, want.rank, want.lane, want.start_ns, ordinal);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(got->end_ns == want.end_ns && got->bytes == want.bytes && got->flops == want.flops &&
                got->chunk == want.chunk && got->step == want.step && got->peer == want.peer &&
                got->correlation == want.correlation && got->name == want.name && got->iteration == want.iteration)
        << i;
  }
  EXPECT_EQ((*store)->GetEvent(*run, 1, 0, 5, 3).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*store)->GetEvent(*run, 1, 0, 5, -1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*store)->GetEvent(*run, 1, 0, 4, 0).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*store)->GetEvent(*run + 1, 1, 0, 5, 0).status().code(), StatusCode::kNotFound);
}

TEST(StoreGetEvent, ADamagedRowIsTheStoresOneLineError) {
  Stored s;
  const Event& first = s.events.front();
  {
    RawDb raw(s.store->path());
    ASSERT_EQ(raw.Exec("PRAGMA ignore_check_constraints = ON; UPDATE events SET kind = 9 WHERE run = " +
                       std::to_string(s.run) + " AND rank = " + std::to_string(first.rank) + " AND lane = " +
                       std::to_string(first.lane) + " AND start_ns = " + std::to_string(first.start_ns)),
              "");
  }
  auto got = s.store->GetEvent(s.run, first.rank, first.lane, first.start_ns, 0);
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("damaged store: run"), std::string::npos) << got.status().message();
  EXPECT_NE(got.status().message().find("kind 9"), std::string::npos) << got.status().message();
}

TEST(StoreScan, AMissingRunIsNotFound) {
  Stored s;
  Status st = s.store->ScanEvents(s.run + 1, {}, [](std::span<const Event>) { return Status::Ok(); });
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace braid
