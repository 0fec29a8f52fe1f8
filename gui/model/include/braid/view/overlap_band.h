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

// A merged set coalesced for drawing at coarser and coarser gaps (levels[k]
// closes every gap shorter than kDrawLevelBaseNs * 8^k), so that a whole
// run seen at milliseconds per pixel is drawn from a few intervals per
// pixel instead of walking thousands (a mip-map).
struct DrawLevels {
  std::vector<int64_t> gap_ns;
  std::vector<std::vector<Interval>> levels;
};
inline constexpr int64_t kDrawLevelBaseNs = 1000;
// @pre `merged` is merged (MergeIntervals): sorted, apart.
DrawLevels MakeDrawLevels(const std::vector<Interval>& merged);
// The coarsest of `merged` and its levels whose gap is at most `min_gap_ns`:
// CoalesceForDrawing of it gives, inside any window, what it gives of
// `merged`, but for a gap narrower than min_gap_ns at the window's edges
// that a coarse interval bridges (less than the pixel that is drawn anyway).
const std::vector<Interval>& CoarsestFor(const std::vector<Interval>& merged, const DrawLevels& levels,
                                         int64_t min_gap_ns);

struct RankBand {
  int rank = 0;
  // All merged and sorted, over the whole run (stored times).
  std::vector<Interval> compute, comm, overlap, exposed_comm, tails;
  // The drawn sets' levels.
  DrawLevels overlap_levels, exposed_comm_levels;
};

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

namespace braid::view {

// The intervals of a merged set that meet [t0, t1), with gaps shorter than
// `min_gap_ns` closed, so that a band is drawn with one rectangle per pixel
// run however many intervals it holds: O(drawn · log n).
std::vector<Interval> CoalesceForDrawing(const std::vector<Interval>& merged, int64_t t0, int64_t t1,
                                         int64_t min_gap_ns);

}  // namespace braid::view
