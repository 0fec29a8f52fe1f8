#include "braid/view/run_summary.h"

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/run_record.h"
#include "braid/stored_text.h"

namespace braid::view {

Result<RunSummary> SummarizeRun(const StoredRun& run, const std::vector<MetricRow>& rows) {
  // The record every reader decodes (braid/run_record.h): damaged stored
  // text gets the one-line answer `braid report` gives.
  BRAID_ASSIGN_OR_RETURN(auto record, RecordOfStored(run, rows));
  const RunRecord& r = record;
  RunSummary s;
  s.id = run.id;
  s.source = r.source;
  s.topology = r.topology;
  s.backend = r.backend;
  s.event_count = run.event_count;
  s.iterations = r.iterations;
  s.workload = DescribeStoredWorkload(r.has_workload, r.workload, r.notes);
  s.ops = LayerOpsOf(r.notes);
  if (Result<OverlapConfig> c = ConfigFromJson(r.config); c.ok()) {  // imported runs have none
    s.algorithm = std::string(AlgorithmName(c->algorithm));
    s.config = c->Describe();
  }
  const MetricSummary& o = r.figures.metrics.overall;
  s.makespan_ns = o[Metric::kMakespan].p50;
  s.compute_ns = o[Metric::kCompute].p50;
  s.comm_ns = o[Metric::kComm].p50;
  s.overlap_ns = o[Metric::kOverlap].p50;
  s.exposed_comm_ns = o[Metric::kExposedComm].p50;
  s.tail_ns = o[Metric::kTail].p50;
  s.overlap_ratio = o[Metric::kOverlapRatio].p50;
  if (r.figures.lower_bound) {
    s.lower_bound_ns = r.figures.lower_bound->lower_bound_ns();
    s.efficiency = r.figures.efficiency.p50;
  }
  return s;
}

Result<std::vector<RunSummary>> LoadRunSummaries(const Store& store) {
  BRAID_ASSIGN_OR_RETURN(auto runs, store.ListRuns());
  std::vector<RunSummary> out;
  out.reserve(runs.size());
  for (const StoredRun& r : runs) {
    BRAID_ASSIGN_OR_RETURN(auto rows, store.LoadMetrics(r.id));
    BRAID_ASSIGN_OR_RETURN(auto summary, SummarizeRun(r, rows));
    out.push_back(std::move(summary));
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
