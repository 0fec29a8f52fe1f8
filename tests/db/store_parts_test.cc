// Store::WriteRunInParts: a run stored part by part reads back as the same
// run written whole, and any failure part-way leaves nothing.
#include <gtest/gtest.h>

#include <string>
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

// One part per rank, in the order given.
std::vector<Store::RunPart> PartsByRank(const std::vector<Event>& events, const std::vector<LaneInfo>& lanes,
                                        const std::vector<int>& order) {
  std::vector<Store::RunPart> parts;
  for (int r : order) {
    Store::RunPart& p = parts.emplace_back();
    for (const LaneInfo& l : lanes) {
      if (l.rank == r) p.lanes.push_back(l);
    }
    for (const Event& e : events) {
      if (e.rank == r) p.events.push_back(e);
    }
  }
  return parts;
}

struct Feed {
  std::vector<Store::RunPart> parts;
  size_t next = 0;
  int fail_at = -1;  // next() fails when asked for this part
  Result<const Store::RunPart*> Next() {
    if (int(next) == fail_at) return Status::Invalid("part " + std::to_string(next) + " is bad");
    if (next == parts.size()) return static_cast<const Store::RunPart*>(nullptr);
    return &parts[next++];
  }
};

TEST(StoreParts, PartsInAnyRankOrderReadBackAsTheWholeRun) {
  TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());
  const std::vector<Event> events = MakeEvents(3, 4, 2, 5);
  const std::vector<LaneInfo> lanes = MakeLanes(4, 2);
  const std::vector<MetricRow> metrics = {{0, 0, "makespan_ns", 5.0}, {1, 2, "makespan_ns", 6.0}};
  Result<int64_t> whole = (*store)->WriteRun(SampleMeta(), lanes, events, metrics);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  Feed feed{PartsByRank(events, lanes, {2, 0, 3, 1})};
  Result<int64_t> parted = (*store)->WriteRunInParts([&] { return feed.Next(); },
                                                     [&]() -> Result<Store::RunEnd> {
                                                       return Store::RunEnd{SampleMeta(), metrics};
                                                     });
  ASSERT_TRUE(parted.ok()) << parted.status().message();

  auto a = (*store)->LoadEvents(*whole), b = (*store)->LoadEvents(*parted);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].rank, (*b)[i].rank);
    EXPECT_EQ((*a)[i].lane, (*b)[i].lane);
    EXPECT_EQ((*a)[i].start_ns, (*b)[i].start_ns);
    EXPECT_EQ((*a)[i].name, (*b)[i].name);
  }
  auto ra = (*store)->GetRun(*whole), rb = (*store)->GetRun(*parted);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(rb->event_count, ra->event_count);
  EXPECT_EQ(rb->meta.notes_json, ra->meta.notes_json);
  EXPECT_EQ(rb->meta.workload.op, ra->meta.workload.op);
  EXPECT_EQ((*store)->LoadLanes(*parted)->size(), lanes.size());
  EXPECT_EQ((*store)->LoadMetrics(*parted)->size(), metrics.size());
}

TEST(StoreParts, AFailureAnywhereLeavesNothing) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->WriteRun(SampleMeta(), MakeLanes(1, 1), MakeEvents(1, 1, 1, 3), {}).ok());
  const std::vector<Event> events = MakeEvents(2, 3, 2, 4);
  const std::vector<LaneInfo> lanes = MakeLanes(3, 2);
  const auto good_end = []() -> Result<Store::RunEnd> { return Store::RunEnd{SampleMeta(), {}}; };

  Feed failing{PartsByRank(events, lanes, {0, 1, 2}), 0, 2};
  Result<int64_t> r1 = (*store)->WriteRunInParts([&] { return failing.Next(); }, good_end);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.status().message(), "part 2 is bad");

  Feed fine{PartsByRank(events, lanes, {0, 1, 2})};
  Result<int64_t> r2 = (*store)->WriteRunInParts([&] { return fine.Next(); },
                                                 []() -> Result<Store::RunEnd> { return Status::Invalid("no end"); });
  ASSERT_FALSE(r2.ok());

  Feed bad_event{PartsByRank(events, lanes, {0, 1, 2})};
  bad_event.parts[1].events[3].end_ns = bad_event.parts[1].events[3].start_ns - 1;
  Result<int64_t> r3 = (*store)->WriteRunInParts([&] { return bad_event.Next(); }, good_end);
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.status().message().find("ends before it starts"), std::string::npos) << r3.status().message();

  Feed bad_meta{PartsByRank(events, lanes, {0, 1, 2})};
  Result<int64_t> r4 = (*store)->WriteRunInParts([&] { return bad_meta.Next(); },
                                                 []() -> Result<Store::RunEnd> {
                                                   RunMeta m = SampleMeta();
                                                   m.source = "guessed";
                                                   return Store::RunEnd{m, {}};
                                                 });
  ASSERT_FALSE(r4.ok());

  store->reset();
  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), 3);
  EXPECT_EQ(raw.Text("PRAGMA foreign_key_check"), "");
}

// The push form: parts added as a producer makes them; a writer dropped
// before Finish, or one whose part fails, leaves nothing and frees the store.
TEST(StoreParts, APushedRunReadsBackAndADroppedOneLeavesNothing) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  const std::vector<Event> events = MakeEvents(2, 3, 2, 4);
  const std::vector<LaneInfo> lanes = MakeLanes(3, 2);
  {
    auto w = (*store)->BeginRun();
    ASSERT_TRUE(w.ok()) << w.status().message();
    for (const Store::RunPart& p : PartsByRank(events, lanes, {1, 0})) ASSERT_TRUE((*w)->Add(p).ok());
  }  // dropped: rolled back
  {
    auto w = (*store)->BeginRun();
    ASSERT_TRUE(w.ok());
    Store::RunPart bad = PartsByRank(events, lanes, {0})[0];
    bad.events[0].end_ns = bad.events[0].start_ns - 1;
    EXPECT_FALSE((*w)->Add(bad).ok());
    EXPECT_FALSE((*w)->Finish({SampleMeta(), {}}).ok());  // a failed writer takes nothing more
  }
  auto w = (*store)->BeginRun();
  ASSERT_TRUE(w.ok()) << w.status().message();  // the store is free again
  for (const Store::RunPart& p : PartsByRank(events, lanes, {2, 0, 1})) ASSERT_TRUE((*w)->Add(p).ok());
  Result<int64_t> id = (*w)->Finish({SampleMeta(), {{0, 0, "makespan_ns", 1.0}}});
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto loaded = (*store)->LoadEvents(*id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), events.size());
  EXPECT_EQ((*store)->LoadMetrics(*id)->size(), 1u);
  w->reset();
  store->reset();
  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), int64_t(events.size()));
  EXPECT_EQ(raw.Text("PRAGMA foreign_key_check"), "");
}

// A run's event rows go in as multi-row INSERT OR ROLLBACK statements (no
// statement journal): when SQLite refuses a row half way through a part,
// it ends the whole transaction itself. Nothing of the run stays, the run
// before is kept, and the store takes the next run.
TEST(StoreParts, ARowSqliteRefusesHalfWayEndsTheWholeRun) {
  TempDir dir;
  const std::string path = dir.Path("runs.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->WriteRun(SampleMeta(), MakeLanes(1, 1), MakeEvents(1, 1, 1, 3), {}).ok());
  const std::vector<Event> events = MakeEvents(2, 3, 2, 20);  // 80 per rank: seq 100 is rank 1's 21st
  const std::vector<LaneInfo> lanes = MakeLanes(3, 2);
  const auto good_end = []() -> Result<Store::RunEnd> { return Store::RunEnd{SampleMeta(), {}}; };
  {
    RawDb raw(path);
    ASSERT_EQ(raw.Exec("CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.seq = 100"
                       " BEGIN SELECT RAISE(ROLLBACK, 'refused row'); END"),
              "");
  }
  Feed parts{PartsByRank(events, lanes, {0, 1, 2})};
  Result<int64_t> parted = (*store)->WriteRunInParts([&] { return parts.Next(); }, good_end);
  ASSERT_FALSE(parted.ok());
  EXPECT_NE(parted.status().message().find("refused row"), std::string::npos) << parted.status().message();
  EXPECT_EQ(parts.next, 2u);  // the first part was in when the second failed

  Result<int64_t> whole = (*store)->WriteRun(SampleMeta(), lanes, events, {});
  ASSERT_FALSE(whole.ok());
  EXPECT_NE(whole.status().message().find("refused row"), std::string::npos) << whole.status().message();
  {
    RawDb raw(path);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM events"), 3);
    ASSERT_EQ(raw.Exec("DROP TRIGGER refuse"), "");
  }
  Feed again{PartsByRank(events, lanes, {0, 1, 2})};
  Result<int64_t> id = (*store)->WriteRunInParts([&] { return again.Next(); }, good_end);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ((*store)->LoadEvents(*id)->size(), events.size());
  store->reset();
  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(raw.Text("PRAGMA foreign_key_check"), "");
}

}  // namespace
}  // namespace braid
