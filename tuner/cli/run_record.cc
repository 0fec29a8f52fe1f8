#include "run_record.h"

#include <unistd.h>

#include <climits>

#include "braid/metric_rows.h"

#ifndef BRAID_VERSION
#define BRAID_VERSION "unknown"
#endif
#ifndef BRAID_GIT_REVISION
#define BRAID_GIT_REVISION "unknown"
#endif

namespace braid::cli {

nlohmann::json ConfigJson(const OverlapConfig& c) {
  return {{"algorithm", AlgorithmName(c.algorithm)},
          {"chunks", c.chunks},
          {"splits", c.splits},
          {"streams", c.comm_lanes},
          {"comm_sms", c.comm_sms},
          {"comm_engine", CommEngineName(c.comm_engine)},
          {"comm_priority", c.comm_high_priority ? "high" : "normal"}};
}

RunRecord RecordOfRun(const Plan& plan, const std::string& topology, std::string_view backend,
                      const RunOptions& options, const RunOutput& output) {
  RunRecord r;
  r.workload = plan.workload;
  r.topology = topology;
  r.backend = std::string(backend);
  r.config = ConfigJson(plan.config);
  r.iterations = options.iters;
  r.warmup = options.warmup;
  r.notes["compute_dtype"] = output.compute_dtype;
  r.notes["notes"] = output.notes;
  const VerifyResult& v = output.verify;
  r.notes["verify"] = v.ran ? nlohmann::json{{"ok", v.ok}, {"max_rel_error", v.max_rel_error}, {"worst_rank", v.worst_rank}}
                            : nlohmann::json(nullptr);
  double link_gbps = 0, link_latency_us = 0;
  for (const auto& [name, value] : output.settings) {
    if (name == "link_gbps") link_gbps = value;
    if (name == "link_latency_us") link_latency_us = value;
  }
  if (link_gbps > 0) r.notes["link_emulation"] = {{"gbps", link_gbps}, {"latency_us", link_latency_us}};
  r.notes["seed"] = options.seed;
  r.metrics = ComputeRunMetrics(output.events);
  return r;
}

RunMeta MetaOf(const RunRecord& r) {
  RunMeta m;
  m.source = r.source;
  m.backend = r.backend;
  m.topology = r.topology;
  m.has_workload = r.has_workload;
  m.workload = r.workload;
  m.config_json = r.config.dump();
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  m.braid_version = BRAID_VERSION;
  m.git_revision = BRAID_GIT_REVISION;
  m.iterations = r.iterations;
  m.warmup = r.warmup;
  m.notes_json = r.notes.dump();
  return m;
}

std::vector<LaneInfo> LanesOf(const Plan& plan) {
  std::vector<LaneInfo> lanes;
  for (int rank = 0; rank < plan.tp(); ++rank) {
    for (size_t l = 0; l < plan.lanes.size(); ++l) {
      const Lane& lane = plan.lanes[l];
      lanes.push_back({rank, int(l), lane.name, lane.kind == LaneKind::kCompute ? "compute" : "comm"});
    }
  }
  return lanes;
}

Result<RunRecord> RecordOfStored(const StoredRun& run, const std::vector<MetricRow>& rows) {
  RunRecord r;
  r.run_id = run.id;
  r.source = run.meta.source;
  r.has_workload = run.meta.has_workload;
  r.workload = run.meta.workload;
  r.topology = run.meta.topology;
  r.backend = run.meta.backend;
  r.iterations = run.meta.iterations;
  r.warmup = run.meta.warmup;
  // The store only accepts JSON that parses; a failure here is a damaged file.
  r.config = nlohmann::json::parse(run.meta.config_json, nullptr, false);
  r.notes = nlohmann::json::parse(run.meta.notes_json, nullptr, false);
  if (r.config.is_discarded() || r.notes.is_discarded() || !r.notes.is_object()) {
    return Status::Invalid("run " + std::to_string(run.id) + " has damaged config or notes JSON");
  }
  r.metrics = RunMetricsFromRows(rows);
  return r;
}

}  // namespace braid::cli
