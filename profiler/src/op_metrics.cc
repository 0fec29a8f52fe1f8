#include "braid/op_metrics.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "braid/intervals.h"
#include "braid/metrics.h"
#include "braid/plan.h"

namespace braid {

OpMetricsBuilder::OpMetricsBuilder(std::vector<std::string> op_names) : names_(std::move(op_names)) {}

int OpMetricsBuilder::OpOf(const std::string& event_name) {
  const auto it = op_of_name_.find(event_name);
  if (it != op_of_name_.end()) return it->second;
  int best = -1;
  for (size_t i = 0; i < names_.size(); ++i) {
    const std::string& op = names_[i];
    if (op == event_name) {
      best = int(i);
      break;
    }
    if (!InOpScope(event_name, op)) continue;
    if (best < 0 || op.size() > names_[size_t(best)].size()) best = int(i);
  }
  op_of_name_.emplace(event_name, best);
  return best;
}

namespace {

struct OpSpans {
  int64_t first = INT64_MAX, last = INT64_MIN;
  std::vector<Interval> compute, comm;
};

}  // namespace

void OpMetricsBuilder::Add(const std::vector<Event>& events) {
  const size_t ops = names_.size();
  // (iteration, rank) -> every compute interval of the rank, and per op its spans.
  struct RankIteration {
    std::vector<Interval> compute;
    std::map<int, OpSpans> ops;
  };
  std::map<std::pair<int, int>, RankIteration> groups;
  for (const Event& e : events) {
    if (e.kind == EventKind::kMarker || e.kind == EventKind::kSync || e.iteration < 0) continue;
    const int op = OpOf(e.name);
    if (op < 0) continue;
    RankIteration& g = groups[{e.iteration, e.rank}];
    OpSpans& s = g.ops[op];
    s.first = std::min(s.first, e.start_ns);
    s.last = std::max(s.last, e.end_ns);
    if (e.kind == EventKind::kCompute) {
      s.compute.push_back({e.start_ns, e.end_ns});
      g.compute.push_back({e.start_ns, e.end_ns});
    } else if (e.kind == EventKind::kComm) {
      s.comm.push_back({e.start_ns, e.end_ns});
    }
  }
  for (auto& [key, g] : groups) {
    const size_t it = size_t(key.first);
    if (worst_.size() <= it) worst_.resize(it + 1, std::vector<std::optional<OpFigures>>(ops));
    const std::vector<Interval> all_compute = MergeIntervals(std::move(g.compute));
    for (auto& [op, s] : g.ops) {
      const std::vector<Interval> compute = MergeIntervals(std::move(s.compute));
      const std::vector<Interval> comm = MergeIntervals(std::move(s.comm));
      OpFigures f;
      f.time_ns = s.first <= s.last ? double(s.last - s.first) : 0.0;
      f.compute_ns = double(UnionLength(compute));
      f.comm_ns = double(UnionLength(comm));
      const double hidden = double(IntersectionLength(comm, all_compute));
      f.exposed_comm_ns = f.comm_ns - hidden;
      f.overlap_ratio = f.comm_ns > 0 ? hidden / f.comm_ns : 0.0;
      std::optional<OpFigures>& w = worst_[it][size_t(op)];
      if (!w) {
        w = f;
        continue;
      }
      w->time_ns = std::max(w->time_ns, f.time_ns);
      w->compute_ns = std::max(w->compute_ns, f.compute_ns);
      w->comm_ns = std::max(w->comm_ns, f.comm_ns);
      w->exposed_comm_ns = std::max(w->exposed_comm_ns, f.exposed_comm_ns);
      w->overlap_ratio = std::min(w->overlap_ratio, f.overlap_ratio);
    }
  }
}

std::vector<OpFigures> OpMetricsBuilder::Finish() const {
  std::vector<OpFigures> out(names_.size());
  for (size_t op = 0; op < names_.size(); ++op) {
    std::vector<double> time, compute, comm, exposed, overlap;
    for (const auto& row : worst_) {
      if (!row[op]) continue;
      time.push_back(row[op]->time_ns);
      compute.push_back(row[op]->compute_ns);
      comm.push_back(row[op]->comm_ns);
      exposed.push_back(row[op]->exposed_comm_ns);
      overlap.push_back(row[op]->overlap_ratio);
    }
    out[op] = {Percentile(time, 0.5), Percentile(compute, 0.5), Percentile(comm, 0.5), Percentile(exposed, 0.5),
               Percentile(overlap, 0.5)};
  }
  return out;
}

}  // namespace braid
