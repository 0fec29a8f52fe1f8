#include "braid/metrics.h"

#include <algorithm>
#include <cmath>

#include "braid/intervals.h"

namespace braid {

std::string_view MetricName(Metric m) {
  switch (m) {
    case Metric::kMakespan:
      return "makespan_ns";
    case Metric::kCompute:
      return "compute_ns";
    case Metric::kComm:
      return "comm_ns";
    case Metric::kOverlap:
      return "overlap_ns";
    case Metric::kExposedComm:
      return "exposed_comm_ns";
    case Metric::kTail:
      return "tail_ns";
    case Metric::kOverlapRatio:
      return "overlap_ratio";
  }
  return "?";
}

MetricValues RankIterationMetrics(const std::vector<const Event*>& events) {
  MetricValues out;
  std::vector<Interval> compute, comm;
  int64_t first = INT64_MAX, last = INT64_MIN, last_compute_end = INT64_MIN;
  for (const Event* e : events) {
    if (e->kind == EventKind::kMarker || e->kind == EventKind::kSync) continue;
    first = std::min(first, e->start_ns);
    last = std::max(last, e->end_ns);
    if (e->kind == EventKind::kCompute) {
      compute.push_back({e->start_ns, e->end_ns});
      last_compute_end = std::max(last_compute_end, e->end_ns);
    } else if (e->kind == EventKind::kComm) {
      comm.push_back({e->start_ns, e->end_ns});
    }
  }
  if (first > last) return out;
  compute = MergeIntervals(std::move(compute));
  comm = MergeIntervals(std::move(comm));
  const int64_t c = UnionLength(compute), m = UnionLength(comm);
  const int64_t o = IntersectionLength(compute, comm);
  out[Metric::kMakespan] = double(last - first);
  out[Metric::kCompute] = double(c);
  out[Metric::kComm] = double(m);
  out[Metric::kOverlap] = double(o);
  out[Metric::kExposedComm] = double(m - o);
  out[Metric::kTail] = last_compute_end == INT64_MIN ? 0.0 : double(last - last_compute_end);
  out[Metric::kOverlapRatio] = m > 0 ? double(o) / double(m) : 0.0;
  return out;
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = q * double(values.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - double(lo));
}

namespace {

MetricSummary Summarize(const std::vector<MetricValues>& series) {
  MetricSummary s;
  for (Metric m : kAllMetrics) {
    std::vector<double> xs;
    xs.reserve(series.size());
    for (const MetricValues& v : series) xs.push_back(v[m]);
    s[m] = {Percentile(xs, 0.50), Percentile(xs, 0.99)};
  }
  return s;
}

}  // namespace

RunMetrics SummarizeRunMetrics(std::vector<std::vector<MetricValues>> values, std::vector<bool> present) {
  RunMetrics rm;
  rm.iterations = int(values.size());
  rm.ranks = values.empty() ? 0 : int(values[0].size());
  rm.values = std::move(values);
  rm.present = present.empty() ? std::vector<bool>(size_t(rm.ranks), true) : std::move(present);
  std::vector<MetricValues> worst(size_t(rm.iterations));
  for (int it = 0; it < rm.iterations; ++it) {
    bool first = true;
    for (int r = 0; r < rm.ranks; ++r) {
      if (!rm.present[size_t(r)]) continue;
      const MetricValues& v = rm.values[size_t(it)][size_t(r)];
      MetricValues& w = worst[size_t(it)];
      for (Metric m : kAllMetrics) {
        if (first) {
          w[m] = v[m];
        } else {
          w[m] = m == Metric::kOverlapRatio ? std::min(w[m], v[m]) : std::max(w[m], v[m]);
        }
      }
      first = false;
    }
  }
  rm.overall = Summarize(worst);
  for (int r = 0; r < rm.ranks; ++r) {
    std::vector<MetricValues> series;
    for (int it = 0; it < rm.iterations; ++it) series.push_back(rm.values[size_t(it)][size_t(r)]);
    rm.per_rank.push_back(Summarize(series));
  }
  return rm;
}

RunMetrics ComputeRunMetrics(const std::vector<Event>& events) {
  int iterations = 0, ranks = 0;
  for (const Event& e : events) {
    iterations = std::max(iterations, e.iteration + 1);
    ranks = std::max(ranks, e.rank + 1);
  }
  const size_t n_it = static_cast<size_t>(iterations), n_rank = static_cast<size_t>(ranks);
  std::vector<std::vector<std::vector<const Event*>>> groups(n_it, std::vector<std::vector<const Event*>>(n_rank));
  for (const Event& e : events) {
    if (e.iteration >= 0 && e.rank >= 0) groups[size_t(e.iteration)][size_t(e.rank)].push_back(&e);
  }
  std::vector<std::vector<MetricValues>> values(n_it, std::vector<MetricValues>(n_rank));
  std::vector<bool> present(n_rank, false);
  for (int it = 0; it < iterations; ++it) {
    for (int r = 0; r < ranks; ++r) {
      values[size_t(it)][size_t(r)] = RankIterationMetrics(groups[size_t(it)][size_t(r)]);
      if (!groups[size_t(it)][size_t(r)].empty()) present[size_t(r)] = true;
    }
  }
  return SummarizeRunMetrics(std::move(values), std::move(present));
}

}  // namespace braid
