// The streaming loader (braid/view/run_load.h): the timeline it builds from
// batches is the one BuildTimeline makes of the whole run; progress rises to
// the run's count; a cancel ends the scan at the next batch; a damaged store
// is its one-line error.
#include "braid/view/run_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "gui_test_util.h"

namespace braid::view {
namespace {

using testing::TempDir;

// `a_details` false: `a` was loaded without its details, which must then
// be Event's defaults.
void ExpectSameEvent(const Event& a, const Event& b, bool a_details = true) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.lane, b.lane);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.correlation, b.correlation);
  const Event none;
  const Event& want = a_details ? b : none;
  EXPECT_EQ(a.bytes, want.bytes);
  EXPECT_EQ(a.flops, want.flops);
  EXPECT_EQ(a.chunk, want.chunk);
  EXPECT_EQ(a.step, want.step);
  EXPECT_EQ(a.peer, want.peer);
}

// `a` as loaded (without details), `b` built from the whole run.
void ExpectSameTimeline(const Timeline& a, const Timeline& b) {
  EXPECT_TRUE(a.without_details());
  EXPECT_FALSE(b.without_details());
  EXPECT_EQ(a.run, b.run);
  EXPECT_EQ(a.event_count, b.event_count);
  EXPECT_EQ(a.origin_ns, b.origin_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.ranks, b.ranks);
  ASSERT_EQ(a.iterations.size(), b.iterations.size());
  for (size_t i = 0; i < a.iterations.size(); ++i) {
    EXPECT_EQ(a.iterations[i].iteration, b.iterations[i].iteration);
    EXPECT_EQ(a.iterations[i].begin_ns, b.iterations[i].begin_ns);
    EXPECT_EQ(a.iterations[i].end_ns, b.iterations[i].end_ns);
  }
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (size_t r = 0; r < a.rows.size(); ++r) {
    const TimelineRow &x = a.rows[r], &y = b.rows[r];
    EXPECT_EQ(x.rank, y.rank);
    EXPECT_EQ(x.lane, y.lane);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.max_end, y.max_end);
    ASSERT_EQ(x.events.size(), y.events.size());
    EXPECT_TRUE(x.whole.empty());
    ASSERT_EQ(y.whole.size(), y.events.size());
    for (size_t i = 0; i < x.events.size(); ++i) {
      ExpectSameEvent(EventOf(a, {r, i}), y.whole[i], /*a_details=*/false);
      EXPECT_EQ(a.NameOf(x.events[i]), b.NameOf(y.events[i]));
    }
  }
}

bool SameIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Interval& x, const Interval& y) { return x.begin == y.begin && x.end == y.end; });
}

// The whole run read at once and laid out by BuildTimeline: the reference.
Timeline LoadedWhole(const Store& store, int64_t run) {
  auto events = store.LoadEvents(run);
  auto lanes = store.LoadLanes(run);
  EXPECT_TRUE(events.ok() && lanes.ok());
  Timeline t = BuildTimeline(std::move(*events), *lanes);
  t.run = run;
  return t;
}

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

class RunLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = dir.Path("runs.db");
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok()) << s.status().message();
    hand = testing::WriteRun(**s, testing::HandEvents(), testing::HandLanes());
    ring = testing::WriteSimRun(**s, testing::MakeSimRun("ring", 2));
    dense = testing::WriteRun(**s, testing::DenseEvents(2000, 5, 5), {});
    empty = testing::WriteRun(**s, {}, {}, R"({"algorithm":"serial"})");
  }
  std::unique_ptr<Store> Reader() {
    auto s = Store::Open(path, /*read_only=*/true);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : nullptr;
  }
  TempDir dir;
  std::string path;
  int64_t hand = 0, ring = 0, dense = 0, empty = 0;
};

TEST_F(RunLoadTest, StreamedTimelineIsTheOneBuiltFromTheWholeRun) {
  auto store = Reader();
  for (int64_t run : {hand, ring, dense, empty}) {
    SCOPED_TRACE("run " + std::to_string(run));
    for (size_t batch : {size_t(1), size_t(7), size_t(1) << 16}) {
      LoadControl control;
      control.batch = batch;
      auto t = LoadTimeline(*store, run, control);
      ASSERT_TRUE(t.ok()) << t.status().message();
      ExpectSameTimeline(*t, LoadedWhole(*store, run));
    }
  }
  // The ring run has many events per row: the comparison saw them.
  EXPECT_GT(LoadedWhole(*store, ring).event_count, 100u);
}

TEST_F(RunLoadTest, EveryEventOfALoadedTimelineReadsBackWhole) {
  // Ties: three events start together on one lane, two on another rank.
  std::vector<Event> ties;
  for (int i = 0; i < 5; ++i) {
    Event e;
    e.rank = i < 3 ? 0 : 1;
    e.kind = EventKind::kComm;
    e.name = "t" + std::to_string(i);
    e.start_ns = 10;
    e.end_ns = 20 + i;
    e.bytes = 100 + i;
    e.flops = 0.5 * i;
    e.chunk = i;
    e.step = 2 * i;
    e.peer = i % 2;
    e.correlation = 7;
    ties.push_back(e);
  }
  int64_t tied = 0;
  {
    auto w = Store::Open(path);
    ASSERT_TRUE(w.ok());
    tied = testing::WriteRun(**w, ties, {});
  }
  auto store = Reader();
  for (int64_t run : {hand, ring, dense, tied}) {
    SCOPED_TRACE("run " + std::to_string(run));
    auto t = LoadTimeline(*store, run, {});
    ASSERT_TRUE(t.ok()) << t.status().message();
    const Timeline whole = LoadedWhole(*store, run);
    ASSERT_EQ(t->rows.size(), whole.rows.size());
    for (size_t r = 0; r < t->rows.size(); ++r) {
      for (size_t i = 0; i < t->rows[r].events.size(); ++i) {
        auto e = EventWithDetails(*store, *t, {r, i});
        ASSERT_TRUE(e.ok()) << e.status().message();
        ExpectSameEvent(*e, whole.rows[r].whole[i]);
        // A timeline built with its details gives its own event.
        ExpectSameEvent(*EventWithDetails(*store, whole, {r, i}), whole.rows[r].whole[i]);
      }
    }
  }
}

TEST_F(RunLoadTest, AnEventGoneFromTheStoreIsNotFoundNotAnotherEvent) {
  auto store = Reader();
  auto t = LoadTimeline(*store, hand, {});
  ASSERT_TRUE(t.ok());
  ASSERT_FALSE(t->rows.empty());
  ASSERT_FALSE(t->rows[0].events.empty());
  Exec(path, "DELETE FROM events WHERE run = " + std::to_string(hand));
  auto e = EventWithDetails(*store, *t, {0, 0});
  EXPECT_EQ(e.status().code(), StatusCode::kNotFound) << e.status().message();
  EXPECT_THAT(e.status().message(), ::testing::HasSubstr("of run " + std::to_string(hand)));
}

TEST_F(RunLoadTest, DetailsAreReadOnlyFromTheStoreTheRunCameFrom) {
  auto store = Reader();
  auto t = LoadTimeline(*store, hand, {});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->store_path, path);
  // Another store with a run of the same id: its events are another run's.
  const std::string other_path = dir.Path("other.db");
  {
    auto w = Store::Open(other_path);
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(testing::WriteRun(**w, testing::HandEvents(), testing::HandLanes()), hand);
  }
  auto other = Store::Open(other_path, /*read_only=*/true);
  ASSERT_TRUE(other.ok());
  auto e = EventWithDetails(**other, *t, {0, 0});
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(e.status().message(), ::testing::HasSubstr("was loaded from " + path));
}

TEST_F(RunLoadTest, LoadRunForViewGivesTheBandsAndSummaryOfTheRun) {
  auto store = Reader();
  auto loaded = LoadRunForView(*store, ring, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const Timeline whole = LoadedWhole(*store, ring);
  ExpectSameTimeline(*loaded->timeline, whole);
  const std::vector<RankBand> bands = ComputeOverlapBands(whole);
  ASSERT_EQ(loaded->bands.size(), bands.size());
  for (size_t r = 0; r < bands.size(); ++r) {
    EXPECT_EQ(loaded->bands[r].rank, bands[r].rank);
    EXPECT_EQ(loaded->bands[r].overlap.size(), bands[r].overlap.size());
    EXPECT_EQ(LengthWithin(loaded->bands[r].overlap, whole.origin_ns, whole.end_ns),
              LengthWithin(bands[r].overlap, whole.origin_ns, whole.end_ns));
    EXPECT_GT(LengthWithin(bands[r].overlap, whole.origin_ns, whole.end_ns), 0);
  }
  auto meta = store->GetRun(ring);
  auto rows = store->LoadMetrics(ring);
  ASSERT_TRUE(meta.ok() && rows.ok());
  auto summary = SummarizeRun(*meta, *rows);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(loaded->summary.id, ring);
  EXPECT_EQ(loaded->summary.config, summary->config);
  EXPECT_EQ(loaded->summary.makespan_ns, summary->makespan_ns);
  EXPECT_GT(loaded->summary.makespan_ns, 0);
}

TEST_F(RunLoadTest, ProgressRisesBatchByBatchToTheRunsCount) {
  auto store = Reader();
  std::vector<std::pair<int64_t, int64_t>> seen;
  LoadControl control;
  control.batch = 300;
  control.threads = 1;  // one reader: one report per batch
  control.progress = [&](int64_t read, int64_t total) { seen.emplace_back(read, total); };
  auto t = LoadTimeline(*store, dense, control);
  ASSERT_TRUE(t.ok()) << t.status().message();
  // 0 first, then one report per batch of 300 (the last one short).
  ASSERT_EQ(seen.size(), 1u + 7u);
  EXPECT_EQ(seen.front().first, 0);
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GT(seen[i].first, seen[i - 1].first);
    EXPECT_LE(seen[i].first - seen[i - 1].first, 300);
  }
  for (const auto& [read, total] : seen) EXPECT_EQ(total, 2000);
  EXPECT_EQ(seen.back().first, 2000);
}

TEST_F(RunLoadTest, CancelEndsTheScanAtTheNextBatch) {
  auto store = Reader();
  std::atomic<bool> cancel{false};
  int64_t last_read = 0;
  int reports = 0;
  LoadControl control;
  control.batch = 100;
  control.threads = 1;  // one reader: the batches come in order
  control.cancel = &cancel;
  control.progress = [&](int64_t read, int64_t) {
    last_read = read;
    // Cancelled while the third batch is reported: no fourth is read.
    if (++reports == 1 + 3) cancel = true;
  };
  auto t = LoadTimeline(*store, dense, control);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(t.status().message(), "loading run " + std::to_string(dense) + " cancelled");
  EXPECT_EQ(reports, 1 + 3);
  EXPECT_EQ(last_read, 300);

  // Cancelled before it starts, nothing is read; LoadRunForView says the same.
  reports = 0;
  auto again = LoadRunForView(*store, dense, control);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), "loading run " + std::to_string(dense) + " cancelled");
  EXPECT_EQ(reports, 0);
}

// Ranks read in parts on several threads, each with its own connection:
// the same timeline and bands as one reader, whatever the split (more
// threads than ranks, ranks that do not divide evenly).
TEST_F(RunLoadTest, ThreadsReadingRanksInPartsGiveTheSameTimelineAndBands) {
  auto store = Reader();
  for (int64_t run : {hand, ring, dense, empty}) {
    SCOPED_TRACE("run " + std::to_string(run));
    const Timeline whole = LoadedWhole(*store, run);
    const std::vector<RankBand> bands = ComputeOverlapBands(whole);
    for (int threads : {1, 2, 3, 8}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      LoadControl control;
      control.threads = threads;
      control.batch = 64;
      auto t = LoadTimeline(*store, run, control);
      ASSERT_TRUE(t.ok()) << t.status().message();
      ExpectSameTimeline(*t, whole);
      auto loaded = LoadRunForView(*store, run, control);
      ASSERT_TRUE(loaded.ok()) << loaded.status().message();
      ExpectSameTimeline(*loaded->timeline, whole);
      ASSERT_EQ(loaded->bands.size(), bands.size());
      for (size_t r = 0; r < bands.size(); ++r) {
        EXPECT_EQ(loaded->bands[r].rank, bands[r].rank);
        EXPECT_TRUE(SameIntervals(loaded->bands[r].compute, bands[r].compute));
        EXPECT_TRUE(SameIntervals(loaded->bands[r].comm, bands[r].comm));
        EXPECT_TRUE(SameIntervals(loaded->bands[r].overlap, bands[r].overlap));
        EXPECT_TRUE(SameIntervals(loaded->bands[r].exposed_comm, bands[r].exposed_comm));
      }
    }
  }
  // The ring run's 4 ranks split into real parts (3 threads: uneven ones);
  // the dense run's one rank is more threads than ranks.
  EXPECT_EQ(LoadedWhole(*store, ring).ranks.size(), 4u);
  EXPECT_EQ(LoadedWhole(*store, dense).ranks.size(), 1u);
}

// The ring run's 4 ranks on 3 threads: the caller's thread reports what all
// of them have read, up to the run's count.
TEST_F(RunLoadTest, ProgressFromSeveralThreadsRisesToTheRunsCount) {
  auto store = Reader();
  const int64_t count = int64_t(LoadedWhole(*store, ring).event_count);
  std::vector<int64_t> reads;
  LoadControl control;
  control.batch = 16;
  control.threads = 3;
  control.progress = [&](int64_t read, int64_t total) {
    reads.push_back(read);
    EXPECT_EQ(total, count);
  };
  auto t = LoadTimeline(*store, ring, control);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_GE(reads.size(), 3u);
  EXPECT_EQ(reads.front(), 0);
  EXPECT_TRUE(std::is_sorted(reads.begin(), reads.end()));
  EXPECT_EQ(reads.back(), count);
}

TEST_F(RunLoadTest, CancelStopsEveryThread) {
  auto store = Reader();
  std::atomic<bool> cancel{false};
  LoadControl control;
  control.batch = 4;
  control.threads = 3;
  control.cancel = &cancel;
  control.progress = [&](int64_t read, int64_t) {
    if (read > 0) cancel = true;
  };
  auto t = LoadRunForView(*store, ring, control);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "loading run " + std::to_string(ring) + " cancelled");
}

// Each part's scan is a range of ranks and cannot check the run's count;
// the load checks their sum, with the same one line as a single scan.
TEST_F(RunLoadTest, ADamagedRunReadInPartsIsOneLine) {
  int64_t count = 0;
  {
    auto store = Reader();
    count = int64_t(LoadedWhole(*store, ring).event_count);
  }
  Exec(path, "UPDATE runs SET event_count = event_count - 3 WHERE id = " + std::to_string(ring));
  auto store = Reader();
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    LoadControl control;
    control.threads = threads;
    auto t = LoadRunForView(*store, ring, control);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find("damaged store: run " + std::to_string(ring)), std::string::npos)
        << t.status().message();
    EXPECT_NE(t.status().message().find("event_count " + std::to_string(count - 3) + " but " + std::to_string(count) +
                                        " events"),
              std::string::npos)
        << t.status().message();
    EXPECT_EQ(t.status().message().find('\n'), std::string::npos);
  }
}

// The record's iteration and event counts size the rows' room: damaged to
// huge values they must not become an allocation, only the count's error.
TEST_F(RunLoadTest, HugeCountsInADamagedRecordAreItsErrorNotAnAllocation) {
  Exec(path, "UPDATE runs SET iterations = 2000000000, event_count = 4000000000000 WHERE id = " + std::to_string(ring));
  auto store = Reader();
  for (int threads : {1, 3}) {
    LoadControl control;
    control.threads = threads;
    auto t = LoadRunForView(*store, ring, control);
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find("damaged store"), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("event_count 4000000000000"), std::string::npos) << t.status().message();
  }
}

TEST_F(RunLoadTest, AMissingRunIsNotFound) {
  auto store = Reader();
  auto t = LoadRunForView(*store, 99, {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
}

TEST_F(RunLoadTest, ARunWhoseCountIsWrongIsTheStoresOneLineError) {
  Exec(path, "UPDATE runs SET event_count = event_count + 5 WHERE id = " + std::to_string(dense));
  auto store = Reader();
  std::vector<int64_t> reads;
  LoadControl control;
  control.batch = 500;
  control.progress = [&](int64_t read, int64_t) { reads.push_back(read); };
  auto t = LoadRunForView(*store, dense, control);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("damaged store"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("2005"), std::string::npos) << t.status().message();
  EXPECT_EQ(t.status().message().find('\n'), std::string::npos);
  // Found at the end of the scan, after every batch was read.
  ASSERT_FALSE(reads.empty());
  EXPECT_EQ(reads.back(), 2000);
}

TEST_F(RunLoadTest, AnEventWhoseNameIsGoneIsTheStoresOneLineError) {
  // The ring run's step names; the hand run's are others.
  Exec(path, "DELETE FROM strings WHERE id = (SELECT name_id FROM events WHERE run = " + std::to_string(ring) +
                 " ORDER BY rank DESC, lane DESC, start_ns DESC LIMIT 1)");
  auto store = Reader();
  auto t = LoadRunForView(*store, ring, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("damaged store"), std::string::npos) << t.status().message();
  EXPECT_EQ(t.status().message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace braid::view
