// Per rank, where compute and communication overlap, where communication is
// exposed, and the tail of each iteration: the intervals behind the band the
// timeline draws under each rank. They follow the metrics module's rules
// (braid/metrics.h): per iteration, compute and comm are unions of their
// events' intervals (markers and syncs ignored), overlap is their
// intersection, exposed comm is comm minus compute, and the tail runs from
// the end of the last compute step to the end of the iteration.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/intervals.h"
#include "braid/view/timeline.h"

namespace braid::view {

// Cumulative lengths of a merged set: cum[i] is the length of merged[0, i)
// (cum has merged.size() + 1 entries), so that the length of the set inside
// any window takes two binary searches, whatever it holds.
std::vector<int64_t> CumulativeLengths(const std::vector<Interval>& merged);

struct RankBand {
  int rank = 0;
  // All merged and sorted, over the whole run (stored times).
  std::vector<Interval> compute, comm, overlap, exposed_comm, tails;
  // CumulativeLengths of the two drawn sets.
  std::vector<int64_t> overlap_cum, exposed_comm_cum;
};

// What the band draws in each pixel column: the share of the column's time
// that is overlap and that is exposed communication (each in [0, 1]), for
// `columns` columns of `ns_per_column` ns from stored time `t0`.
struct BandColumn {
  double overlap = 0, exposed = 0;
};
std::vector<BandColumn> BandColumns(const RankBand& band, double t0, double ns_per_column, int columns);

// Pixel heights of each column's two bars in a band `height` pixels tall:
// each share times the height, the rounding carried to the next column, so
// that each colour's pixels stay its share of the time at every zoom (a
// sparse communication seen whole draws a faint band, not a solid one; a
// column wholly one colour is drawn full).
struct BandPixels {
  int overlap = 0, exposed = 0;
};
std::vector<BandPixels> BandPixelHeights(const std::vector<BandColumn>& columns, int height);

// One band per rank of `t.ranks`, in that order.
std::vector<RankBand> ComputeOverlapBands(const Timeline& t);
// The band of one rank: ranks are independent, so a loader may compute
// them on several threads.
RankBand ComputeRankBand(const Timeline& t, int rank);

// Interval-set helpers (inputs merged and sorted, as MergeIntervals makes them).
std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b);
std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Length of the part of a merged set inside [t0, t1): O(log n + k).
int64_t LengthWithin(const std::vector<Interval>& merged, int64_t t0, int64_t t1);
// The same in O(log n), with the set's CumulativeLengths.
int64_t LengthWithin(const std::vector<Interval>& merged, const std::vector<int64_t>& cum, int64_t t0, int64_t t1);
// Indices [first, last) of the intervals of a merged set that meet [t0, t1).
std::pair<size_t, size_t> IntervalsWithin(const std::vector<Interval>& merged, int64_t t0, int64_t t1);

// What a range selection reports: its duration and, averaged over the
// ranks, busy compute, communication and their overlap inside it.
struct RangeStats {
  int64_t duration_ns = 0;
  double compute_ns = 0, comm_ns = 0, overlap_ns = 0, exposed_comm_ns = 0;
  double overlap_ratio = 0;  // overlap / comm (0 without comm)
};
RangeStats StatsInRange(const std::vector<RankBand>& bands, int64_t t0, int64_t t1);

}  // namespace braid::view

namespace braid::view {}  // namespace braid::view
