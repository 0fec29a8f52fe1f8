#include "braid/view/overlap_band.h"

#include <algorithm>
#include <climits>
#include <map>
#include <utility>

#include "gallop.h"

namespace braid::view {

std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].begin, b[j].begin), hi = std::min(a[i].end, b[j].end);
    if (lo < hi) out.push_back({lo, hi});
    (a[i].end < b[j].end) ? ++i : ++j;
  }
  return out;
}

std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (const Interval& x : a) {
    int64_t cur = x.begin;
    while (j < b.size() && b[j].end <= cur) ++j;
    for (size_t k = j; k < b.size() && b[k].begin < x.end; ++k) {
      if (b[k].begin > cur) out.push_back({cur, b[k].begin});
      cur = std::max(cur, b[k].end);
    }
    if (cur < x.end) out.push_back({cur, x.end});
  }
  return out;
}

std::pair<size_t, size_t> IntervalsWithin(const std::vector<Interval>& merged, int64_t t0, int64_t t1) {
  // Merged sets have increasing ends as well as beginnings.
  const auto a =
      std::upper_bound(merged.begin(), merged.end(), t0, [](int64_t t, const Interval& x) { return t < x.end; });
  const auto b = std::lower_bound(a, merged.end(), t1, [](const Interval& x, int64_t t) { return x.begin < t; });
  return {size_t(a - merged.begin()), size_t(b - merged.begin())};
}

int64_t LengthWithin(const std::vector<Interval>& merged, int64_t t0, int64_t t1) {
  const auto [a, b] = IntervalsWithin(merged, t0, t1);
  int64_t sum = 0;
  for (size_t i = a; i < b; ++i) sum += std::min(merged[i].end, t1) - std::max(merged[i].begin, t0);
  return sum;
}

namespace {

void Append(std::vector<Interval>& to, const std::vector<Interval>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// What MergeIntervals would give back unchanged: non-empty, sorted, apart.
bool IsMerged(const std::vector<Interval>& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].end <= v[i].begin || (i > 0 && v[i].begin <= v[i - 1].end)) return false;
  }
  return true;
}

// Iterations may touch or (in imported traces) overlap: merged across
// them, unless they are apart already, which spares a copy of the band.
void MergeAcrossIterations(std::vector<Interval>& v) {
  if (!IsMerged(v)) v = MergeIntervals(std::move(v));
}

}  // namespace

std::vector<RankBand> ComputeOverlapBands(const Timeline& t) {
  std::vector<RankBand> bands;
  for (int rank : t.ranks) bands.push_back(ComputeRankBand(t, rank));
  return bands;
}

RankBand ComputeRankBand(const Timeline& t, int rank) {
  RankBand band;
  band.rank = rank;
  // Per iteration, as the metrics module groups them.
  struct PerIteration {
    std::vector<Interval> compute, comm;
    int64_t last_end = INT64_MIN, last_compute_end = INT64_MIN;
  };
  std::map<int, PerIteration> iters;
  const auto [first, last] = t.RowsOfRank(rank);
  for (size_t r = first; r < last; ++r) {
    PerIteration* cur = nullptr;
    int cur_it = 0;
    for (const DrawnEvent& e : t.rows[r].events) {
      if (e.kind == EventKind::kMarker || e.kind == EventKind::kSync) continue;
      if (!cur || cur_it != e.iteration) cur = &iters[cur_it = e.iteration];
      PerIteration& p = *cur;
      p.last_end = std::max(p.last_end, e.end_ns);
      if (e.kind == EventKind::kCompute) {
        p.compute.push_back({e.start_ns, e.end_ns});
        p.last_compute_end = std::max(p.last_compute_end, e.end_ns);
      } else if (e.kind == EventKind::kComm) {
        p.comm.push_back({e.start_ns, e.end_ns});
      }
    }
  }
  for (auto& [it, p] : iters) {
    const std::vector<Interval> compute = MergeIntervals(std::move(p.compute));
    const std::vector<Interval> comm = MergeIntervals(std::move(p.comm));
    Append(band.compute, compute);
    Append(band.comm, comm);
    Append(band.overlap, Intersect(compute, comm));
    Append(band.exposed_comm, Subtract(comm, compute));
    if (p.last_compute_end != INT64_MIN && p.last_end > p.last_compute_end) {
      band.tails.push_back({p.last_compute_end, p.last_end});
    }
  }
  MergeAcrossIterations(band.compute);
  MergeAcrossIterations(band.comm);
  MergeAcrossIterations(band.overlap);
  MergeAcrossIterations(band.exposed_comm);
  MergeAcrossIterations(band.tails);
  band.overlap_levels = MakeDrawLevels(band.overlap);
  band.exposed_comm_levels = MakeDrawLevels(band.exposed_comm);
  return band;
}

RangeStats StatsInRange(const std::vector<RankBand>& bands, int64_t t0, int64_t t1) {
  RangeStats s;
  if (t1 < t0) std::swap(t0, t1);
  s.duration_ns = t1 - t0;
  if (bands.empty() || t1 == t0) return s;
  for (const RankBand& b : bands) {
    s.compute_ns += double(LengthWithin(b.compute, t0, t1));
    s.comm_ns += double(LengthWithin(b.comm, t0, t1));
    s.overlap_ns += double(LengthWithin(b.overlap, t0, t1));
  }
  const double n = double(bands.size());
  s.compute_ns /= n;
  s.comm_ns /= n;
  s.overlap_ns /= n;
  s.exposed_comm_ns = s.comm_ns - s.overlap_ns;
  s.overlap_ratio = s.comm_ns > 0 ? s.overlap_ns / s.comm_ns : 0;
  return s;
}

}  // namespace braid::view

namespace braid::view {

std::vector<Interval> CoalesceForDrawing(const std::vector<Interval>& merged, int64_t t0, int64_t t1,
                                         int64_t min_gap_ns) {
  std::vector<Interval> out;
  const auto [a, b] = IntervalsWithin(merged, t0, t1);
  size_t i = a;
  while (i < b) {
    Interval cur = merged[i];
    size_t next = i + 1;
    while (next < b) {
      // Intervals starting before cur.end + gap join cur; ends increase in a
      // merged set, so the last joined one ends last.
      const auto it = GallopLowerBound(merged.begin() + ptrdiff_t(next), merged.begin() + ptrdiff_t(b),
                                       cur.end + min_gap_ns, [](const Interval& x, int64_t t) { return x.begin < t; });
      const size_t j = size_t(it - merged.begin());
      if (j == next) break;
      cur.end = std::max(cur.end, merged[j - 1].end);
      next = j;
    }
    out.push_back(cur);
    i = next;
  }
  return out;
}

DrawLevels MakeDrawLevels(const std::vector<Interval>& merged) {
  DrawLevels d;
  // Gaps stop at ~11 days, far from overflowing end + gap.
  std::vector<int64_t> gaps;
  for (int64_t gap = kDrawLevelBaseNs; gap <= int64_t(1e15); gap *= 8) gaps.push_back(gap);
  // Closing every gap below g leaves 1 + (gaps of `merged` of g or more)
  // intervals, so one pass over its gaps tells what each level would hold:
  // only the levels kept are built (trying each was a tenth of a 10M-event
  // band). passes[m]: gaps at least as long as gaps[0..m) and no more.
  std::vector<size_t> passes(gaps.size() + 1, 0);
  for (size_t i = 1; i < merged.size(); ++i) {
    const int64_t gap = merged[i].begin - merged[i - 1].end;
    ++passes[size_t(std::upper_bound(gaps.begin(), gaps.end(), gap) - gaps.begin())];
  }
  std::vector<size_t> left(gaps.size());  // left[k]: intervals once gaps below gaps[k] are closed
  size_t longer = 0;
  for (size_t k = gaps.size(); k-- > 0;) {
    longer += passes[k + 1];
    left[k] = 1 + longer;
  }
  // Each level from the last kept one: closing gaps below g, then below
  // g' >= g, closes what closing below g' at once does. A level that does
  // not halve the count is not kept (memory for little).
  size_t from_size = merged.size();
  for (size_t k = 0; k < gaps.size() && from_size > 64; ++k) {
    if (left[k] * 2 > from_size) continue;
    const std::vector<Interval>& from = d.levels.empty() ? merged : d.levels.back();
    d.levels.push_back(CoalesceForDrawing(from, INT64_MIN, INT64_MAX, gaps[k]));
    d.gap_ns.push_back(gaps[k]);
    from_size = d.levels.back().size();
  }
  return d;
}

const std::vector<Interval>& CoarsestFor(const std::vector<Interval>& merged, const DrawLevels& levels,
                                         int64_t min_gap_ns) {
  const std::vector<Interval>* best = &merged;
  for (size_t k = 0; k < levels.levels.size() && levels.gap_ns[k] <= min_gap_ns; ++k) best = &levels.levels[k];
  return *best;
}

}  // namespace braid::view
