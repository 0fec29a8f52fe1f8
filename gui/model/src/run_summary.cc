#include "braid/view/run_summary.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "braid/metric_rows.h"
#include "braid/metrics.h"

namespace braid::view {

namespace {

nlohmann::json ParseOrEmpty(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text.empty() ? "{}" : text, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

std::string DescribeWorkload(const StoredRun& run, const nlohmann::json& notes) {
  if (auto it = notes.find("layer"); it != notes.end() && it->is_object()) {
    const auto ops = it->find("ops");
    const size_t n = ops != it->end() && ops->is_array() ? ops->size() : 0;
    const auto d = it->find("describe");
    return (d != it->end() && d->is_string() ? d->get<std::string>() : std::string("layer")) + " (" +
           std::to_string(n) + " ops)";
  }
  if (run.meta.has_workload) return run.meta.workload.Describe();
  return "imported trace, " + std::to_string(run.meta.workload.tp) + " rank(s)";
}

// p50 over iterations of a stored extra metric (e.g. "efficiency"), worst
// rank first as the metrics module summarizes: max for times, min for ratios.
std::optional<double> ExtraMetric(const std::vector<MetricRow>& rows, const std::string& name, bool larger_is_worse) {
  std::map<int, double> worst;
  for (const MetricRow& r : rows) {
    if (r.name != name) continue;
    auto [it, fresh] = worst.try_emplace(r.iteration, r.value);
    if (!fresh) it->second = larger_is_worse ? std::max(it->second, r.value) : std::min(it->second, r.value);
  }
  if (worst.empty()) return std::nullopt;
  std::vector<double> xs;
  for (const auto& [it, v] : worst) xs.push_back(v);
  return Percentile(std::move(xs), 0.5);
}

}  // namespace

RunSummary SummarizeRun(const StoredRun& run, const std::vector<MetricRow>& rows) {
  RunSummary s;
  s.id = run.id;
  s.source = run.meta.source;
  s.topology = run.meta.topology;
  s.backend = run.meta.backend;
  s.event_count = run.event_count;
  s.iterations = run.meta.iterations;
  const nlohmann::json notes = ParseOrEmpty(run.meta.notes_json);
  const nlohmann::json config = ParseOrEmpty(run.meta.config_json);
  s.workload = DescribeWorkload(run, notes);
  if (auto a = config.find("algorithm"); a != config.end() && a->is_string()) {
    s.algorithm = a->get<std::string>();
    s.config = s.algorithm;
    for (const char* knob : {"chunks", "streams", "comm_sms"}) {
      if (auto k = config.find(knob); k != config.end() && k->is_number()) {
        s.config += std::string(" ") + knob + "=" + std::to_string(k->get<int64_t>());
      }
    }
  }
  const RunMetrics m = RunMetricsFromRows(rows);
  const MetricSummary& o = m.overall;
  s.makespan_ns = o[Metric::kMakespan].p50;
  s.compute_ns = o[Metric::kCompute].p50;
  s.comm_ns = o[Metric::kComm].p50;
  s.overlap_ns = o[Metric::kOverlap].p50;
  s.exposed_comm_ns = o[Metric::kExposedComm].p50;
  s.tail_ns = o[Metric::kTail].p50;
  s.overlap_ratio = o[Metric::kOverlapRatio].p50;
  s.lower_bound_ns = ExtraMetric(rows, "lower_bound_ns", true);
  s.efficiency = ExtraMetric(rows, "efficiency", false);
  if (!s.lower_bound_ns) {
    // Runs recorded before the bound became a metric row keep it in notes.
    if (auto lb = notes.find("lower_bound"); lb != notes.end() && lb->is_object()) {
      const auto v = lb->find("lower_bound_ns");
      if (v != lb->end() && v->is_number()) s.lower_bound_ns = v->get<double>();
    }
  }
  if (!s.efficiency && s.lower_bound_ns && s.makespan_ns > 0) s.efficiency = *s.lower_bound_ns / s.makespan_ns;
  return s;
}

Result<std::vector<RunSummary>> LoadRunSummaries(const Store& store) {
  auto runs = store.ListRuns();
  if (!runs.ok()) return runs.status();
  std::vector<RunSummary> out;
  out.reserve(runs->size());
  for (const StoredRun& r : *runs) {
    auto rows = store.LoadMetrics(r.id);
    if (!rows.ok()) return rows.status();
    out.push_back(SummarizeRun(r, *rows));
  }
  return out;
}

std::vector<MetricComparison> CompareRuns(const RunSummary& a, const RunSummary& b) {
  std::vector<MetricComparison> out;
  auto add = [&out](const char* name, bool is_time, std::optional<double> x, std::optional<double> y) {
    MetricComparison c{name, is_time, x, y, 0, 0};
    if (x && y) {
      c.diff = *y - *x;
      c.ratio = *x != 0 ? *y / *x : 0;
    }
    out.push_back(c);
  };
  add("makespan_ns", true, a.makespan_ns, b.makespan_ns);
  add("compute_ns", true, a.compute_ns, b.compute_ns);
  add("comm_ns", true, a.comm_ns, b.comm_ns);
  add("overlap_ns", true, a.overlap_ns, b.overlap_ns);
  add("exposed_comm_ns", true, a.exposed_comm_ns, b.exposed_comm_ns);
  add("tail_ns", true, a.tail_ns, b.tail_ns);
  add("overlap_ratio", false, a.overlap_ratio, b.overlap_ratio);
  add("lower_bound_ns", true, a.lower_bound_ns, b.lower_bound_ns);
  add("efficiency", false, a.efficiency, b.efficiency);
  return out;
}

}  // namespace braid::view
