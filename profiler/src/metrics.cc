#include "braid/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

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

Status RunMetricsBuilder::Add(const std::vector<Event>& events) {
  int iterations = int(values_.size()), ranks = ranks_;
  for (const Event& e : events) {
    iterations = std::max(iterations, e.iteration + 1);
    ranks = std::max(ranks, e.rank + 1);
  }
  // This batch's groups, indexed like values_ but only over what it brings.
  std::map<std::pair<int, int>, std::vector<const Event*>> groups;
  for (const Event& e : events) {
    if (e.iteration >= 0 && e.rank >= 0) groups[{e.iteration, e.rank}].push_back(&e);
  }
  for (const auto& [key, group] : groups) {
    const auto [it, r] = key;
    if (size_t(it) < values_.size() && size_t(r) < values_[size_t(it)].size() && values_[size_t(it)][size_t(r)]) {
      return Status::Internal("metrics: events of iteration " + std::to_string(it) + " rank " + std::to_string(r) +
                              " came in two batches");
    }
  }
  values_.resize(size_t(iterations));
  ranks_ = ranks;
  for (const auto& [key, group] : groups) {
    auto& row = values_[size_t(key.first)];
    if (row.size() <= size_t(key.second)) row.resize(size_t(key.second) + 1);
    row[size_t(key.second)] = RankIterationMetrics(group);
  }
  return Status::Ok();
}

RunMetrics RunMetricsBuilder::Finish() const {
  const size_t n_rank = size_t(ranks_);
  // An (iteration, rank) without events has the figures of no events.
  const MetricValues none = RankIterationMetrics({});
  std::vector<std::vector<MetricValues>> values(values_.size(), std::vector<MetricValues>(n_rank, none));
  std::vector<bool> present(n_rank, false);
  for (size_t it = 0; it < values_.size(); ++it) {
    for (size_t r = 0; r < values_[it].size(); ++r) {
      if (!values_[it][r]) continue;
      values[it][r] = *values_[it][r];
      present[r] = true;
    }
  }
  return SummarizeRunMetrics(std::move(values), std::move(present));
}

RunMetrics ComputeRunMetrics(const std::vector<Event>& events) {
  RunMetricsBuilder b;
  // One batch cannot bring a group twice.
  (void)b.Add(events);
  return b.Finish();
}

}  // namespace braid
