#include "braid/view/overlap_band.h"

#include <algorithm>
#include <climits>
#include <cmath>
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
  band.overlap_cum = CumulativeLengths(band.overlap);
  band.exposed_comm_cum = CumulativeLengths(band.exposed_comm);
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

std::vector<int64_t> CumulativeLengths(const std::vector<Interval>& merged) {
  std::vector<int64_t> cum(merged.size() + 1, 0);
  for (size_t i = 0; i < merged.size(); ++i) cum[i + 1] = cum[i] + (merged[i].end - merged[i].begin);
  return cum;
}

int64_t LengthWithin(const std::vector<Interval>& merged, const std::vector<int64_t>& cum, int64_t t0, int64_t t1) {
  if (cum.size() != merged.size() + 1) return LengthWithin(merged, t0, t1);
  const auto [a, b] = IntervalsWithin(merged, t0, t1);
  if (a >= b) return 0;
  // Whole intervals a..b, less what the first starts before t0 and the last
  // ends after t1.
  int64_t sum = cum[b] - cum[a];
  sum -= std::max<int64_t>(0, t0 - merged[a].begin);
  sum -= std::max<int64_t>(0, merged[b - 1].end - t1);
  return sum;
}

namespace {

// The length of a merged set before time t (t never decreasing from call
// to call): the first interval ending after t is galloped to from the last
// one found, so a row of columns costs what its boundaries move, not a
// search of the whole set each.
class LengthBefore {
 public:
  LengthBefore(const std::vector<Interval>& merged, const std::vector<int64_t>& cum) : merged_(merged), cum_(cum) {}
  int64_t operator()(int64_t t) {
    const auto it = GallopLowerBound(merged_.begin() + ptrdiff_t(from_), merged_.end(), t,
                                     [](const Interval& x, int64_t v) { return x.end <= v; });
    from_ = size_t(it - merged_.begin());
    int64_t len = cum_[from_];
    if (from_ < merged_.size() && merged_[from_].begin < t) len += t - merged_[from_].begin;
    return len;
  }

 private:
  const std::vector<Interval>& merged_;
  const std::vector<int64_t>& cum_;
  size_t from_ = 0;
};

}  // namespace

std::vector<BandColumn> BandColumns(const RankBand& band, double t0, double ns_per_column, int columns) {
  std::vector<BandColumn> out(size_t(std::max(columns, 0)));
  if (ns_per_column <= 0 || columns <= 0) return out;
  // A band made by hand may lack its cumulative lengths: made here then.
  std::vector<int64_t> made_o, made_e;
  const std::vector<int64_t>* overlap_cum = &band.overlap_cum;
  const std::vector<int64_t>* exposed_cum = &band.exposed_comm_cum;
  if (overlap_cum->size() != band.overlap.size() + 1) overlap_cum = &(made_o = CumulativeLengths(band.overlap));
  if (exposed_cum->size() != band.exposed_comm.size() + 1) {
    exposed_cum = &(made_e = CumulativeLengths(band.exposed_comm));
  }
  LengthBefore overlap(band.overlap, *overlap_cum), exposed(band.exposed_comm, *exposed_cum);
  // Whole ns: a column's end is the next one's start, so no time counts twice.
  int64_t b = int64_t(std::floor(t0));
  int64_t o_before = overlap(b), e_before = exposed(b);
  for (int c = 0; c < columns; ++c) {
    const int64_t e = std::max(b + 1, int64_t(std::floor(t0 + ns_per_column * (c + 1))));
    const int64_t o_after = overlap(e), e_after = exposed(e);
    const double span = double(e - b);
    out[size_t(c)] = {double(o_after - o_before) / span, double(e_after - e_before) / span};
    b = e;
    o_before = o_after;
    e_before = e_after;
  }
  return out;
}

std::vector<BandPixels> BandPixelHeights(const std::vector<BandColumn>& columns, int height) {
  std::vector<BandPixels> out(columns.size());
  double carry_o = 0, carry_e = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    // Overlap and exposed comm never meet in time: their shares sum to at
    // most 1, and so do the heights.
    const double want_o = columns[c].overlap * height + carry_o;
    const double want_e = columns[c].exposed * height + carry_e;
    const int o = std::clamp(int(std::floor(want_o + 1e-9)), 0, height);
    const int e = std::clamp(int(std::floor(want_e + 1e-9)), 0, height - o);
    carry_o = want_o - o;
    carry_e = want_e - e;
    out[c] = {o, e};
  }
  return out;
}

}  // namespace braid::view
