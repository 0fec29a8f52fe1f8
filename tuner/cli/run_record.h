// A run as the reports see it, whether it was just measured, read back from
// the store or imported: the same JSON and table come out of all three.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/backend.h"
#include "braid/metrics.h"
#include "braid/plan.h"
#include "braid/store.h"

namespace braid::cli {

struct RunRecord {
  long long run_id = -1;  // -1: not stored
  std::string source = "measured";
  bool has_workload = true;
  Workload workload;
  std::string topology;
  std::string backend;
  nlohmann::json config = nlohmann::json::object();
  // compute_dtype, notes[], verify{ok, max_rel_error, worst_rank} | null,
  // link_emulation{gbps, latency_us}, hta[{rank, overlap_pct, ...}], files[]
  nlohmann::json notes = nlohmann::json::object();
  int iterations = 0;
  int warmup = 0;
  RunMetrics metrics;
};

nlohmann::json ConfigJson(const OverlapConfig& c);

// A run the backend just made.
RunRecord RecordOfRun(const Plan& plan, const std::string& topology, std::string_view backend,
                      const RunOptions& options, const RunOutput& output);

// What the store keeps of a record (the events and lanes go beside it).
RunMeta MetaOf(const RunRecord& r);
std::vector<LaneInfo> LanesOf(const Plan& plan);

// A stored run with its metric rows.
Result<RunRecord> RecordOfStored(const StoredRun& run, const std::vector<MetricRow>& rows);

}  // namespace braid::cli
