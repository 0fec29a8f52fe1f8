#include "run_compare.h"

#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "run_report.h"

namespace braid::cli {

namespace {

struct Row {
  std::string name;
  double a = 0, b = 0;
  bool is_time = true;
};

std::vector<Row> RowsOf(const RunRecord& a, const RunRecord& b, const PassTimes& passes) {
  std::vector<Row> rows;
  for (Metric m : kAllMetrics) {
    rows.push_back({std::string(MetricName(m)), a.figures.metrics.overall[m].p50, b.figures.metrics.overall[m].p50,
                    m != Metric::kOverlapRatio});
  }
  if (a.figures.lower_bound && b.figures.lower_bound) {
    rows.push_back(
        {"lower_bound_ns", a.figures.lower_bound->lower_bound_ns(), b.figures.lower_bound->lower_bound_ns(), true});
    rows.push_back({"efficiency", a.figures.efficiency.p50, b.figures.efficiency.p50, false});
  }
  for (const char* pass : {"fprop", "dgrad", "wgrad"}) {
    const auto x = passes.a.find(pass), y = passes.b.find(pass);
    if (x != passes.a.end() && y != passes.b.end())
      rows.push_back({std::string(pass) + "_busy_ns", x->second, y->second, true});
  }
  return rows;
}

std::string Label(const RunRecord& r) {
  std::string config = "-";
  if (Result<OverlapConfig> c = ConfigFromJson(r.config); c.ok()) config = c->Describe();
  return "run " + std::to_string(r.run_id) + ": " + r.backend + ", " + config;
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

nlohmann::json CompareJson(const RunRecord& a, const RunRecord& b, const PassTimes& passes) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const Row& r : RowsOf(a, b, passes)) {
    metrics[r.name] = {{"a", r.a},
                       {"b", r.b},
                       {"diff", r.b - r.a},
                       {"ratio", r.a != 0 ? nlohmann::json(r.b / r.a) : nlohmann::json(nullptr)}};
  }
  return {{"runs", {a.run_id, b.run_id}},
          {"workloads",
           {a.has_workload ? a.workload.Describe() : "trace", b.has_workload ? b.workload.Describe() : "trace"}},
          {"configs", {a.config, b.config}},
          {"metrics", metrics}};
}

std::string CompareTable(const RunRecord& a, const RunRecord& b, const PassTimes& passes) {
  std::ostringstream os;
  os << "A  " << Label(a) << "\nB  " << Label(b) << "\n";
  if (a.has_workload && b.has_workload && a.workload.Describe() != b.workload.Describe()) {
    os << "note: the runs are of different workloads (" << a.workload.Describe() << " vs " << b.workload.Describe()
       << ")\n";
  }
  os << "\n" << Pad("worst rank p50", 17) << Pad("A", 13) << Pad("B", 13) << Pad("B − A", 13) << "B / A\n";
  for (const Row& r : RowsOf(a, b, passes)) {
    std::string name = r.name;
    if (name.size() > 3 && name.ends_with("_ns")) name.resize(name.size() - 3);
    const std::string ratio = r.a != 0 ? Fixed(r.b / r.a) : "-";
    if (r.is_time) {
      const double d = r.b - r.a;
      os << Pad(name, 17) << Pad(FormatDuration(r.a), 13) << Pad(FormatDuration(r.b), 13)
         << Pad((d < 0 ? "-" : "+") + FormatDuration(d < 0 ? -d : d), 13) << ratio << "\n";
    } else {
      const double d = r.b - r.a;
      os << Pad(name, 17) << Pad(Fixed(r.a), 13) << Pad(Fixed(r.b), 13) << Pad((d < 0 ? "" : "+") + Fixed(d), 13)
         << ratio << "\n";
    }
  }
  return os.str();
}

}  // namespace braid::cli
