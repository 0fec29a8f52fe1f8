// The timeline model: rows from lanes, culling by binary search, folding of
// narrow events with counts, transfer partners.
#include "braid/view/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "braid/view/level_of_detail.h"
#include "gallop.h"
#include "gui_test_util.h"
#include "timeline_builder.h"

namespace braid::view {
namespace {

using testing::DenseEvents;
using testing::HandEvents;
using testing::HandLanes;

TEST(ViewTimeline, OneRowPerRankAndLaneNamedByTheStoredLanes) {
  const Timeline t = BuildTimeline(HandEvents(), HandLanes());
  ASSERT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(t.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.rows[1].rank, 0);
  EXPECT_EQ(t.rows[1].lane, 1);
  EXPECT_EQ(t.rows[1].name, "comm");
  EXPECT_EQ(t.rows[4].name, "comm");
  EXPECT_EQ(t.rows[4].rank, 1);
  EXPECT_EQ(t.RowsOfRank(1), (std::pair<size_t, size_t>{3, 6}));
  EXPECT_EQ(t.event_count, HandEvents().size());
  EXPECT_EQ(t.origin_ns, 0);
  EXPECT_EQ(t.end_ns, 1280);
  ASSERT_EQ(t.iterations.size(), 2u);
  EXPECT_EQ(t.iterations[1].begin_ns, 1000);
  EXPECT_EQ(t.iterations[1].end_ns, 1280);
}

TEST(ViewTimeline, EventsOnALaneTheStoreDidNotNameGetARow) {
  std::vector<Event> ev = HandEvents();
  ev[0].lane = 5;
  const Timeline t = BuildTimeline(ev, HandLanes());
  ASSERT_EQ(t.rows.size(), 7u);
  EXPECT_EQ(t.rows[3].lane, 5);
  EXPECT_EQ(t.rows[3].name, "lane 5");
  EXPECT_EQ(t.rows[3].events.size(), 1u);
}

TEST(ViewTimeline, RowsAreSortedByStartWhateverTheInputOrder) {
  std::vector<Event> ev = HandEvents();
  std::mt19937 rng(3);
  std::shuffle(ev.begin(), ev.end(), rng);
  const Timeline t = BuildTimeline(ev, HandLanes());
  for (const TimelineRow& row : t.rows) {
    EXPECT_TRUE(std::is_sorted(row.events.begin(), row.events.end(),
                               [](const DrawnEvent& a, const DrawnEvent& b) { return a.start_ns < b.start_ns; }));
  }
}

// Brute force: every event that intersects [t0, t1).
std::vector<size_t> Intersecting(const TimelineRow& row, int64_t t0, int64_t t1) {
  std::vector<size_t> out;
  for (size_t i = 0; i < row.events.size(); ++i) {
    if (row.events[i].end_ns > t0 && row.events[i].start_ns < t1) out.push_back(i);
  }
  return out;
}

TEST(ViewTimeline, CullingFindsExactlyTheEventsInTheWindowEvenWithLongOverlappingOnes) {
  // A lane where a long event spans many short ones (an imported stream).
  std::vector<Event> ev = DenseEvents(200, 5, 5);
  ev.push_back(ev[0]);
  ev.back().start_ns = 3;
  ev.back().end_ns = 1500;
  const Timeline t = BuildTimeline(ev, {});
  const TimelineRow& row = t.rows[0];
  for (int64_t t0 : {0, 2, 3, 7, 400, 1499, 1500, 1995, 2100}) {
    for (int64_t len : {1, 4, 10, 333, 5000}) {
      const auto [a, b] = VisibleEvents(row, t0, t0 + len);
      const std::vector<size_t> want = Intersecting(row, t0, t0 + len);
      // Every wanted event is inside the range, which starts and ends on one.
      for (size_t i : want) {
        EXPECT_GE(i, a) << t0 << "+" << len;
        EXPECT_LT(i, b) << t0 << "+" << len;
      }
      // It starts on the first wanted event; after the range, nothing starts
      // before t1. (Inside it, events hidden under a long one may end before
      // t0: the price of the running maximum, clipped when drawn.)
      if (!want.empty()) {
        EXPECT_EQ(a, want.front()) << t0 << "+" << len;
      }
      EXPECT_TRUE(b == row.events.size() || row.events[b].start_ns >= t0 + len);
      EXPECT_TRUE(b == 0 || b == a || row.events[b - 1].start_ns < t0 + len);
    }
  }
}

TEST(ViewTimeline, TransfersAreMatchedByCorrelationWithinTheIteration) {
  const Timeline t = BuildTimeline(HandEvents(), HandLanes());
  // Rank 0's send0 of iteration 0 is rows[1].events[0].
  ASSERT_EQ(t.NameOf(t.rows[1].events[0]), "send0");
  const std::vector<EventRef> m = MatchingTransfers(t, {1, 0});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(t.rows[m[0].row].rank, 1);
  EXPECT_EQ(t.rows[m[0].row].events[m[0].index].iteration, 0);
  EXPECT_TRUE(MatchingTransfers(t, {0, 0}).empty());  // a GEMM has no partner
}

// Events that come out of start order (the store never hands them so)
// still end up sorted, ties in the order they came, with their running
// maximum end; rows that came in order keep theirs as they were built.
TEST(ViewTimelineBuilder, RowsOutOfOrderAreSortedWithTheirRunningMaximumEnd) {
  TimelineBuilder b({});
  auto add = [&](int lane, int64_t start, int64_t end, int32_t name) {
    b.Add(0, lane, DrawnEvent{start, end, -1, 0, name, EventKind::kCompute});
  };
  add(0, 50, 60, 0);
  add(0, 10, 100, 1);
  add(1, 5, 7, 2);
  add(0, 10, 20, 3);
  add(1, 6, 9, 4);
  add(0, 30, 35, 5);
  const Timeline t = std::move(b).Finish();
  ASSERT_EQ(t.rows.size(), 2u);
  std::vector<int32_t> order;
  for (const DrawnEvent& e : t.rows[0].events) order.push_back(e.name);
  EXPECT_EQ(order, (std::vector<int32_t>{1, 3, 5, 0}));
  EXPECT_EQ(t.rows[0].max_end, (std::vector<int64_t>{100, 100, 100, 100}));
  EXPECT_EQ(t.rows[1].max_end, (std::vector<int64_t>{7, 9}));
  EXPECT_EQ(t.event_count, 6u);
}

TEST(ViewNameTable, EqualNamesShareOneIndex) {
  NameTable names;
  const int32_t a = names.Intern("gemm_rs gemm step 12");
  const int32_t b = names.Intern("gemm_rs send step 12");
  EXPECT_NE(a, b);
  EXPECT_EQ(names.Intern(std::string("gemm_rs gemm step ") + "12"), a);
  EXPECT_EQ(names.Intern("gemm_rs send step 12"), b);
  EXPECT_EQ(names.Intern(""), 2);
  EXPECT_EQ(names.size(), 3u);
  EXPECT_EQ(names[a], "gemm_rs gemm step 12");
  EXPECT_EQ(names[b], "gemm_rs send step 12");
}

// A built timeline keeps one name per distinct name, and each event whole
// beside its drawn form, in the same order.
TEST(ViewTimeline, BuiltTimelineInternsNamesAndKeepsEachEventWhole) {
  std::vector<Event> ev = HandEvents();
  std::mt19937 rng(5);
  std::shuffle(ev.begin(), ev.end(), rng);
  const Timeline t = BuildTimeline(ev, HandLanes());
  std::vector<std::string> distinct;
  for (const Event& e : ev) distinct.push_back(e.name);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(t.names.size(), distinct.size());
  size_t seen = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const TimelineRow& row = t.rows[r];
    ASSERT_EQ(row.whole.size(), row.events.size());
    for (size_t i = 0; i < row.events.size(); ++i, ++seen) {
      const DrawnEvent& d = row.events[i];
      const Event& w = row.whole[i];
      EXPECT_EQ(t.NameOf(d), w.name);
      EXPECT_EQ(d.start_ns, w.start_ns);
      EXPECT_EQ(d.end_ns, w.end_ns);
      EXPECT_EQ(d.kind, w.kind);
      EXPECT_EQ(d.iteration, w.iteration);
      EXPECT_EQ(d.correlation, w.correlation);
      EXPECT_EQ(w.rank, row.rank);
      EXPECT_EQ(w.lane, row.lane);
      const Event e = EventOf(t, {r, i});
      EXPECT_EQ(e.name, w.name);
      EXPECT_EQ(e.bytes, w.bytes);
      EXPECT_EQ(e.peer, w.peer);
    }
  }
  EXPECT_EQ(seen, ev.size());
}

size_t Covered(const std::vector<DrawBlock>& blocks) {
  size_t n = 0;
  for (const DrawBlock& b : blocks) n += b.count;
  return n;
}

TEST(ViewLevelOfDetail, WideEventsAreDrawnOneByOne) {
  const Timeline t = BuildTimeline(HandEvents(), HandLanes());
  // 1 ns per pixel: every event is >= 20 px.
  const auto blocks = FoldForDrawing(t.rows[0], 0, 2000, 1.0);
  ASSERT_EQ(blocks.size(), 4u);
  for (const DrawBlock& b : blocks) EXPECT_EQ(b.count, 1u);
  EXPECT_EQ(blocks[1].start_ns, 100);
  EXPECT_EQ(blocks[1].end_ns, 200);
}

TEST(ViewLevelOfDetail, NarrowNeighboursFoldIntoOneBlockWithTheirCount) {
  const Timeline t = BuildTimeline(DenseEvents(1000, 2, 1), {});
  // 3000 ns over 300 px: 10 ns per px, every event is a fifth of a pixel.
  const auto blocks = FoldForDrawing(t.rows[0], 0, 3000, 10.0);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].count, 1000u);
  EXPECT_EQ(blocks[0].start_ns, 0);
  EXPECT_EQ(blocks[0].end_ns, 2999);
  EXPECT_FALSE(blocks[0].mixed_kinds);
}

TEST(ViewLevelOfDetail, AGapWiderThanTheThresholdSplitsFolds) {
  std::vector<Event> ev = DenseEvents(100, 2, 1);
  std::vector<Event> later = DenseEvents(50, 2, 1);
  for (Event& e : later) {
    e.start_ns += 10'000;
    e.end_ns += 10'000;
  }
  ev.insert(ev.end(), later.begin(), later.end());
  const Timeline t = BuildTimeline(ev, {});
  const auto blocks = FoldForDrawing(t.rows[0], 0, 20'000, 10.0);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].count, 100u);
  EXPECT_EQ(blocks[1].count, 50u);
  EXPECT_EQ(blocks[1].start_ns, 10'000);
}

TEST(ViewLevelOfDetail, EveryVisibleEventIsInExactlyOneBlockAtEveryZoom) {
  // Mixed widths: runs of narrow events between wide ones.
  std::vector<Event> ev;
  std::mt19937 rng(7);
  int64_t t = 0;
  for (int i = 0; i < 5000; ++i) {
    Event e;
    e.kind = i % 3 == 0 ? EventKind::kComm : EventKind::kCompute;
    e.start_ns = t;
    e.end_ns = t + (i % 97 == 0 ? 5000 : int64_t(rng() % 40 + 1));
    t = e.end_ns + int64_t(rng() % 30);
    ev.push_back(e);
  }
  const Timeline tl = BuildTimeline(ev, {});
  for (double ns_per_px : {0.5, 5.0, 50.0, 500.0, 5000.0}) {
    const auto blocks = FoldForDrawing(tl.rows[0], 0, t, ns_per_px);
    EXPECT_EQ(Covered(blocks), ev.size()) << ns_per_px;
    for (size_t i = 1; i < blocks.size(); ++i) {
      EXPECT_EQ(blocks[i].first, blocks[i - 1].first + blocks[i - 1].count);
      EXPECT_GE(blocks[i].start_ns, blocks[i - 1].start_ns);
    }
    // Folds stand only for events narrower than the threshold.
    for (const DrawBlock& b : blocks) {
      if (b.count > 1) {
        for (size_t k = b.first; k < b.first + b.count; ++k) {
          EXPECT_LT(double(ev[k].end_ns - ev[k].start_ns), 3 * ns_per_px + 1);
        }
      }
    }
  }
  // Zoomed out, far fewer blocks than events.
  EXPECT_LT(FoldForDrawing(tl.rows[0], 0, t, 5000.0).size(), 200u);
}

TEST(ViewLevelOfDetail, AWindowInTheMiddleCoversOnlyItsEvents) {
  const Timeline t = BuildTimeline(DenseEvents(1000, 10, 10), {});
  // [5000, 6000): events 250..299 (event 249 ends at 4990+10 = 5000, outside).
  const auto blocks = FoldForDrawing(t.rows[0], 5000, 6000, 1.0);
  ASSERT_EQ(blocks.size(), 50u);
  EXPECT_EQ(blocks.front().first, 250u);
}

TEST(ViewGallop, FindsWhatLowerBoundFindsFromAnyStart) {
  std::mt19937 rng(7);
  for (int n : {0, 1, 2, 3, 5, 64, 1000}) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (auto& x : v) x = int64_t(rng() % 50);
    std::sort(v.begin(), v.end());
    for (size_t from = 0; from <= v.size(); from += 1 + v.size() / 7) {
      for (int64_t target = -1; target <= 51; ++target) {
        const auto first = v.begin() + ptrdiff_t(from);
        EXPECT_EQ(GallopLowerBound(first, v.end(), target) - v.begin(),
                  std::lower_bound(first, v.end(), target) - v.begin())
            << "n " << n << " from " << from << " target " << target;
      }
    }
  }
}

}  // namespace
}  // namespace braid::view
