// Overlap band intervals against the metrics module's own figures, and the
// statistics of a range selection.
#include "braid/view/overlap_band.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <utility>

#include "braid/metrics.h"
#include "gui_test_util.h"

namespace braid::view {
namespace {

using testing::HandEvents;
using testing::HandLanes;

int64_t Total(const std::vector<Interval>& v) {
  int64_t n = 0;
  for (const Interval& i : v) n += i.end - i.begin;
  return n;
}

TEST(ViewOverlapBand, HandRunIntervalsAreWhereTheyShouldBe) {
  const Timeline t = BuildTimeline(HandEvents(), HandLanes());
  const auto bands = ComputeOverlapBands(t);
  ASSERT_EQ(bands.size(), 2u);
  const RankBand& b = bands[0];
  ASSERT_EQ(b.overlap.size(), 2u);
  EXPECT_EQ(b.overlap[0].begin, 50);
  EXPECT_EQ(b.overlap[0].end, 150);
  ASSERT_EQ(b.exposed_comm.size(), 2u);
  EXPECT_EQ(b.exposed_comm[0].begin, 200);
  EXPECT_EQ(b.exposed_comm[0].end, 260);
  ASSERT_EQ(b.tails.size(), 2u);
  EXPECT_EQ(b.tails[1].begin, 1200);
  EXPECT_EQ(b.tails[1].end, 1260);  // the sync at 1260..1270 is not part of it
  EXPECT_EQ(bands[1].overlap[0].begin, 60);
}

// For every (iteration, rank), the band's intervals inside that group's span
// add up to what ComputeRunMetrics reports for it.
void ExpectBandsMatchMetrics(const std::vector<Event>& events, const std::vector<LaneInfo>& lanes) {
  const Timeline t = BuildTimeline(events, lanes);
  const auto bands = ComputeOverlapBands(t);
  const RunMetrics m = ComputeRunMetrics(events);
  std::map<std::pair<int, int>, Interval> span;  // (iteration, rank) -> first start, last end
  for (const Event& e : events) {
    if (e.kind == EventKind::kMarker || e.kind == EventKind::kSync) continue;
    auto [it, fresh] = span.try_emplace({e.iteration, e.rank}, Interval{e.start_ns, e.end_ns});
    it->second.begin = std::min(it->second.begin, e.start_ns);
    it->second.end = std::max(it->second.end, e.end_ns);
  }
  ASSERT_FALSE(span.empty());
  for (size_t i = 0; i < bands.size(); ++i) {
    const RankBand& b = bands[i];
    for (const auto& [key, s] : span) {
      if (key.second != b.rank) continue;
      const MetricValues& v = m.values[size_t(key.first)][size_t(key.second)];
      SCOPED_TRACE("iteration " + std::to_string(key.first) + " rank " + std::to_string(b.rank));
      EXPECT_EQ(double(LengthWithin(b.compute, s.begin, s.end)), v[Metric::kCompute]);
      EXPECT_EQ(double(LengthWithin(b.comm, s.begin, s.end)), v[Metric::kComm]);
      EXPECT_EQ(double(LengthWithin(b.overlap, s.begin, s.end)), v[Metric::kOverlap]);
      EXPECT_EQ(double(LengthWithin(b.exposed_comm, s.begin, s.end)), v[Metric::kExposedComm]);
      EXPECT_EQ(double(LengthWithin(b.tails, s.begin, s.end)), v[Metric::kTail]);
    }
  }
}

TEST(ViewOverlapBand, HandRunMatchesTheMetricsModule) { ExpectBandsMatchMetrics(HandEvents(), HandLanes()); }

TEST(ViewOverlapBand, SimRingRunMatchesTheMetricsModule) {
  const testing::SimRun ring = testing::MakeSimRun("ring", 2);
  ASSERT_FALSE(ring.events.empty());
  ExpectBandsMatchMetrics(ring.events, ring.lanes);
  // The ring hides communication: the band shows overlap on every rank.
  for (const RankBand& b : ComputeOverlapBands(BuildTimeline(ring.events, ring.lanes))) EXPECT_GT(Total(b.overlap), 0);
}

TEST(ViewOverlapBand, SimChunkedRunMatchesTheMetricsModuleAndHasATail) {
  const testing::SimRun chunked = testing::MakeSimRun("chunked", 4);
  ASSERT_FALSE(chunked.events.empty());
  ExpectBandsMatchMetrics(chunked.events, chunked.lanes);
  // Chunked gemm_rs: its last collective is exposed, the tail docs/design.md names.
  for (const RankBand& b : ComputeOverlapBands(BuildTimeline(chunked.events, chunked.lanes))) {
    EXPECT_EQ(b.tails.size(), 3u);
    EXPECT_GT(Total(b.exposed_comm), 0);
  }
}

TEST(ViewOverlapBand, IntersectAndSubtractOfIntervalSets) {
  const std::vector<Interval> a{{0, 10}, {20, 30}, {40, 50}}, b{{5, 25}, {45, 60}};
  const auto i = Intersect(a, b);
  ASSERT_EQ(i.size(), 3u);
  EXPECT_EQ(i[0].begin, 5);
  EXPECT_EQ(i[1].end, 25);
  EXPECT_EQ(i[2].begin, 45);
  const auto d = Subtract(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].end, 5);
  EXPECT_EQ(d[1].begin, 25);
  EXPECT_EQ(d[2].end, 45);
  EXPECT_EQ(LengthWithin(a, 8, 42), 2 + 10 + 2);
}

TEST(ViewOverlapBand, CoalescingClosesOnlyGapsNarrowerThanAPixel) {
  const std::vector<Interval> set{{0, 10}, {12, 20}, {30, 40}, {41, 42}, {100, 110}};
  const auto c = CoalesceForDrawing(set, 0, 200, 5);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].begin, 0);
  EXPECT_EQ(c[0].end, 20);
  EXPECT_EQ(c[1].begin, 30);
  EXPECT_EQ(c[1].end, 42);
  EXPECT_EQ(c[2].begin, 100);
  EXPECT_EQ(CoalesceForDrawing(set, 0, 200, 1).size(), 5u);
  EXPECT_EQ(CoalesceForDrawing(set, 25, 90, 1).size(), 2u);
}

// The drawn union clipped to [t0, t1): what the painter shows of a window.
// A gap narrower than a pixel (`gap`) at either edge of the window is closed:
// a coarse level may bridge it where the full set, cut at the edge, cannot.
std::vector<Interval> Clipped(const std::vector<Interval>& drawn, int64_t t0, int64_t t1, int64_t gap) {
  std::vector<Interval> out;
  for (Interval i : drawn) {
    i.begin = std::max(i.begin, t0);
    i.end = std::min(i.end, t1);
    if (i.begin < i.end) out.push_back(i);
  }
  if (!out.empty() && out.front().begin - t0 < gap) out.front().begin = t0;
  if (!out.empty() && t1 - out.back().end < gap) out.back().end = t1;
  return out;
}

TEST(ViewOverlapBand, DrawLevelsDrawWhatTheFullSetDrawsAtEveryZoom) {
  // Irregular gaps from 1 ns to 50 µs, 20,000 intervals.
  std::mt19937_64 rng(11);
  std::vector<Interval> raw;
  int64_t t = 0;
  for (int i = 0; i < 20'000; ++i) {
    const int64_t gap = int64_t(rng() % 4 == 0 ? rng() % 50'000 : rng() % 3000) + 1;
    const int64_t len = int64_t(rng() % 2000) + 1;
    raw.push_back({t + gap, t + gap + len});
    t += gap + len;
  }
  const std::vector<Interval> set = MergeIntervals(raw);
  const DrawLevels levels = MakeDrawLevels(set);
  ASSERT_GE(levels.levels.size(), 2u) << "a set this long gets coarser levels";
  for (size_t k = 1; k < levels.levels.size(); ++k) {
    EXPECT_GT(levels.gap_ns[k], levels.gap_ns[k - 1]);
    EXPECT_LE(levels.levels[k].size() * 2, levels.levels[k - 1].size());
  }
  for (int64_t gap : {int64_t(1), int64_t(999), int64_t(1000), int64_t(7000), int64_t(64'000), int64_t(3'000'000)}) {
    const std::vector<Interval>& coarse = CoarsestFor(set, levels, gap);
    if (gap >= levels.gap_ns[0]) {
      EXPECT_LT(coarse.size(), set.size()) << gap;
    }
    for (const auto& [t0, t1] : {std::pair<int64_t, int64_t>{0, t}, {t / 3, t / 3 + 100'000}, {t / 2, t}}) {
      const auto want = Clipped(CoalesceForDrawing(set, t0, t1, gap), t0, t1, gap);
      const auto got = Clipped(CoalesceForDrawing(coarse, t0, t1, gap), t0, t1, gap);
      ASSERT_EQ(got.size(), want.size()) << "gap " << gap << " window " << t0;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].begin, want[i].begin);
        EXPECT_EQ(got[i].end, want[i].end);
      }
    }
  }
}

// The levels as they were first made: every level tried by coalescing,
// kept when it halves the last kept one. MakeDrawLevels counts instead.
DrawLevels LevelsByTryingEach(const std::vector<Interval>& merged) {
  DrawLevels d;
  for (int64_t gap = kDrawLevelBaseNs; gap <= int64_t(1e15); gap *= 8) {
    const std::vector<Interval>& from = d.levels.empty() ? merged : d.levels.back();
    if (from.size() <= 64) break;
    std::vector<Interval> level = CoalesceForDrawing(from, INT64_MIN, INT64_MAX, gap);
    if (level.size() * 2 > from.size()) continue;
    d.gap_ns.push_back(gap);
    d.levels.push_back(std::move(level));
  }
  return d;
}

TEST(ViewOverlapBand, DrawLevelsAreTheOnesTryingEachLevelWouldKeep) {
  std::mt19937_64 rng(11);
  int layered = 0;  // rounds that got two levels or more: the comparison saw them
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(round);
    // Gaps spread over many powers of 8, some touching the level bounds.
    std::vector<Interval> raw;
    int64_t t = int64_t(rng() % 1000);
    const int n = int(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      int64_t gap = int64_t(1) << (rng() % 40);
      if (rng() % 5 == 0) gap = kDrawLevelBaseNs << (3 * (rng() % 6));
      gap += int64_t(rng() % 3) - 1;
      const int64_t len = int64_t(rng() % 5000) + 1;
      raw.push_back({t + gap, t + gap + len});
      t += gap + len;
    }
    const std::vector<Interval> set = MergeIntervals(raw);
    const DrawLevels want = LevelsByTryingEach(set), got = MakeDrawLevels(set);
    ASSERT_EQ(got.gap_ns, want.gap_ns);
    layered += want.levels.size() >= 2 ? 1 : 0;
    ASSERT_EQ(got.levels.size(), want.levels.size());
    for (size_t k = 0; k < want.levels.size(); ++k) {
      ASSERT_EQ(got.levels[k].size(), want.levels[k].size());
      for (size_t i = 0; i < want.levels[k].size(); ++i) {
        EXPECT_EQ(got.levels[k][i].begin, want.levels[k][i].begin);
        EXPECT_EQ(got.levels[k][i].end, want.levels[k][i].end);
      }
    }
  }
  EXPECT_GE(layered, 10);
}

TEST(ViewRangeStats, OverlapOfASelectionAveragedOverRanks) {
  const auto bands = ComputeOverlapBands(BuildTimeline(HandEvents(), HandLanes()));
  // [0, 300): per rank compute 200, comm 160, overlap 100 (rank 1 is shifted
  // by 10 ns but still wholly inside).
  const RangeStats s = StatsInRange(bands, 0, 300);
  EXPECT_EQ(s.duration_ns, 300);
  EXPECT_DOUBLE_EQ(s.compute_ns, 200);
  EXPECT_DOUBLE_EQ(s.comm_ns, 160);
  EXPECT_DOUBLE_EQ(s.overlap_ns, 100);
  EXPECT_DOUBLE_EQ(s.exposed_comm_ns, 60);
  EXPECT_DOUBLE_EQ(s.overlap_ratio, 0.625);
  // [100, 160): rank 0 comm 50 (to 150), overlap 50; rank 1 comm 60, overlap 60.
  const RangeStats part = StatsInRange(bands, 160, 100);  // reversed ends are ordered
  EXPECT_EQ(part.duration_ns, 60);
  EXPECT_DOUBLE_EQ(part.comm_ns, 55);
  EXPECT_DOUBLE_EQ(part.overlap_ratio, 1.0);
}

}  // namespace
}  // namespace braid::view
