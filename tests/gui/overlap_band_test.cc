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

TEST(ViewOverlapBand, CumulativeLengthsGiveTheLengthInAnyWindow) {
  std::mt19937_64 rng(11);
  std::vector<Interval> raw;
  int64_t t = 0;
  for (int i = 0; i < 5000; ++i) {
    const int64_t gap = int64_t(rng() % 3000) + 1, len = int64_t(rng() % 2000) + 1;
    raw.push_back({t + gap, t + gap + len});
    t += gap + len;
  }
  const std::vector<Interval> set = MergeIntervals(raw);
  const std::vector<int64_t> cum = CumulativeLengths(set);
  ASSERT_EQ(cum.size(), set.size() + 1);
  EXPECT_EQ(cum.back(), Total(set));
  for (int k = 0; k < 2000; ++k) {
    int64_t a = int64_t(rng() % uint64_t(t + 100)) - 50, b = int64_t(rng() % uint64_t(t + 100)) - 50;
    if (a > b) std::swap(a, b);
    ASSERT_EQ(LengthWithin(set, cum, a, b), LengthWithin(set, a, b)) << a << " " << b;
  }
}

// A rank whose communication is sparse: 1 ns of comm every 10 ns, 44 % of
// it under compute. Seen whole at 100 ns a pixel, each colour's pixels keep
// its share of the time; one solid comm interval still draws full columns.
TEST(ViewOverlapBand, PixelsKeepTheProportionsOfTheTimeAtEveryZoom) {
  RankBand band;
  for (int64_t i = 0; i < 100'000; ++i) {
    const int64_t at = i * 10;
    (i % 25 < 11 ? band.overlap : band.exposed_comm).push_back({at, at + 1});
  }
  band.overlap_cum = CumulativeLengths(band.overlap);
  band.exposed_comm_cum = CumulativeLengths(band.exposed_comm);
  for (double ns_per_px : {1.0, 7.0, 100.0, 1000.0}) {
    const int columns = int(1'000'000 / ns_per_px);
    const std::vector<BandPixels> px = BandPixelHeights(BandColumns(band, 0, ns_per_px, columns), 20);
    int64_t o = 0, e = 0;
    for (const BandPixels& c : px) {
      ASSERT_LE(c.overlap + c.exposed, 20);
      o += c.overlap;
      e += c.exposed;
    }
    SCOPED_TRACE(ns_per_px);
    // 44 % of the comm overlapped, 10 % of the time comm: both kept.
    EXPECT_NEAR(double(o) / double(o + e), 0.44, 0.01);
    EXPECT_NEAR(double(o + e) / (20.0 * columns), 0.10, 0.01);
  }
  RankBand solid;
  solid.exposed_comm = {{0, 1000}};
  solid.exposed_comm_cum = CumulativeLengths(solid.exposed_comm);
  solid.overlap_cum = CumulativeLengths(solid.overlap);
  const std::vector<BandPixels> px = BandPixelHeights(BandColumns(solid, 0, 10, 150), 20);
  EXPECT_EQ(px[50].exposed, 20);
  EXPECT_EQ(px[50].overlap, 0);
  EXPECT_EQ(px[120].exposed, 0);
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
