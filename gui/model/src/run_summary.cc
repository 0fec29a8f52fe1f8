#include "braid/view/run_summary.h"

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
  // The figures as the run's maker stored them (braid/metric_rows.h).
  const RunFigures f = RunFiguresFromRows(rows);
  const MetricSummary& o = f.metrics.overall;
  s.makespan_ns = o[Metric::kMakespan].p50;
  s.compute_ns = o[Metric::kCompute].p50;
  s.comm_ns = o[Metric::kComm].p50;
  s.overlap_ns = o[Metric::kOverlap].p50;
  s.exposed_comm_ns = o[Metric::kExposedComm].p50;
  s.tail_ns = o[Metric::kTail].p50;
  s.overlap_ratio = o[Metric::kOverlapRatio].p50;
  if (f.lower_bound) {
    s.lower_bound_ns = f.lower_bound->lower_bound_ns();
    s.efficiency = f.efficiency.p50;
  } else if (auto lb = notes.find("lower_bound"); lb != notes.end() && lb->is_object()) {
    // Runs stored before the bound became metric rows kept it in notes.
    const auto v = lb->find("lower_bound_ns");
    if (v != lb->end() && v->is_number() && s.makespan_ns > 0) {
      s.lower_bound_ns = v->get<double>();
      s.efficiency = *s.lower_bound_ns / s.makespan_ns;
    }
  }
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
