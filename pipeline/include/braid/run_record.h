// A run as every reader sees it, whether it was just measured, read back
// from the store or imported: `braid run`, `report`, `export`, the tuner and
// the viewer take the same record and the same figures from here.
//
// Stored JSON (config, notes) comes from a file a user may have edited or
// damaged: parsing it never throws; a field of the wrong type, missing or
// null is an Invalid status naming the run and the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "braid/backend.h"
#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/run_figures.h"
#include "braid/status.h"
#include "braid/store.h"
#include "braid/stored_text.h"  // the codec: ConfigJson, ConfigFromJson, LayerOpNote

namespace braid {

struct RunRecord {
  long long run_id = -1;  // -1: not stored
  std::string source = "measured";
  bool has_workload = true;
  Workload workload;
  std::string topology;
  std::string backend;
  nlohmann::json config = nlohmann::json::object();  // ConfigJson(); {} for imported traces
  // The notes object braid/stored_text.h describes (DecodeNotesText).
  nlohmann::json notes = nlohmann::json::object();
  int iterations = 0;
  int warmup = 0;
  RunFigures figures;
};

// A run the backend just made, with its figures (ComputeRunMetrics of its
// events, or RunMetricsBuilder's when they were streamed and the output
// holds none); `lower_bound` from MeasureLowerBound.
RunRecord RecordOfRun(const Plan& plan, const std::string& topology, std::string_view backend,
                      const RunOptions& options, const RunOutput& output, const RunMetrics& metrics,
                      std::optional<LowerBound> lower_bound = std::nullopt);

// A layer run's ops with their figures, from its notes (empty for a
// single-op run): what a report shows, without the caller decoding notes.
std::vector<LayerOpNote> LayerOpsOf(const RunRecord& r);

// What the store keeps of a record (the events and lanes go beside it).
RunMeta MetaOf(const RunRecord& r);
std::vector<LaneInfo> LanesOf(const Plan& plan);
std::vector<MetricRow> RowsOf(const RunRecord& r);  // FigureRowsOf(r.figures)

// A stored run with its metric rows. Invalid when its config or notes JSON
// is damaged (does not parse, or a field has the wrong type).
[[nodiscard]] Result<RunRecord> RecordOfStored(const StoredRun& run, const std::vector<MetricRow>& rows);

// GetRun + LoadMetrics + RecordOfStored.
[[nodiscard]] Result<RunRecord> LoadRunRecord(const Store& store, int64_t run);

}  // namespace braid
