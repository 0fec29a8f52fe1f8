#include "braid/run_record.h"

#include <unistd.h>

#include <utility>

#include "braid/metric_rows.h"
#include "braid/version.h"

namespace braid {

namespace {

using Json = nlohmann::json;

std::string RunWhere(long long run) { return "run " + std::to_string(run); }

}  // namespace

RunRecord RecordOfRun(const Plan& plan, const std::string& topology, std::string_view backend,
                      const RunOptions& options, const RunOutput& output, const RunMetrics& metrics,
                      std::optional<LowerBound> lower_bound) {
  RunRecord r;
  r.workload = plan.workload;
  r.topology = topology;
  r.backend = std::string(backend);
  r.config = ConfigJson(plan.config);
  r.iterations = options.iters;
  r.warmup = options.warmup;
  r.notes[note::kComputeDtype] = output.compute_dtype;
  r.notes[note::kNotes] = output.notes;
  const VerifyResult& v = output.verify;
  r.notes[note::kVerify] =
      v.ran ? Json{{"ok", v.ok}, {"max_rel_error", v.max_rel_error}, {"worst_rank", v.worst_rank}} : Json(nullptr);
  double link_gbps = 0, link_latency_us = 0;
  for (const auto& [name, value] : output.settings) {
    if (name == "link_gbps") link_gbps = value;
    if (name == "link_latency_us") link_latency_us = value;
    // The sim's expected relative error of its figures (braid/sim_error_band.h).
    if (name == "error_band") r.notes[note::kErrorBand] = value;
    if (name == "error_band_assumed") r.notes[note::kErrorBandAssumed] = value != 0;
  }
  if (link_gbps > 0) r.notes[note::kLinkEmulation] = {{"gbps", link_gbps}, {"latency_us", link_latency_us}};
  r.notes[note::kSeed] = options.seed;
  if (lower_bound) {
    r.notes[note::kLowerBound] = {{"compute_alone_ns", lower_bound->compute_alone_ns},
                                  {"comm_alone_ns", lower_bound->comm_alone_ns},
                                  {"lower_bound_ns", lower_bound->lower_bound_ns()}};
  }
  r.figures = FiguresOf(metrics, lower_bound);
  return r;
}

std::vector<LayerOpNote> LayerOpsOf(const RunRecord& r) { return LayerOpsOf(r.notes); }

RunMeta MetaOf(const RunRecord& r) {
  RunMeta m;
  m.source = r.source;
  m.backend = r.backend;
  m.topology = r.topology;
  m.has_workload = r.has_workload;
  m.workload = r.workload;
  m.config_json = r.config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  m.braid_version = std::string(BraidVersion());
  m.git_revision = std::string(BraidGitRevision());
  m.iterations = r.iterations;
  m.warmup = r.warmup;
  // A user's file and folder names need not be UTF-8: stored with U+FFFD for what is not.
  m.notes_json = r.notes.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

std::vector<MetricRow> RowsOf(const RunRecord& r) { return FigureRowsOf(r.figures); }

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
  // Imported traces have no config ({}); every other run must have a whole one.
  BRAID_ASSIGN_OR_RETURN(auto config, DecodeConfigText(run.meta.config_json, r.source == "imported", RunWhere(run.id)));
  r.config = std::move(config.json);
  BRAID_ASSIGN_OR_RETURN(auto notes, DecodeNotesText(run.meta.notes_json, RunWhere(run.id)));
  r.notes = std::move(notes);
  r.figures = RunFiguresFromRows(rows);
  // Runs stored before the lower bound had rows of its own keep it in notes.
  if (!r.figures.lower_bound && r.notes.contains(note::kLowerBound)) {
    const Json& lb = r.notes[note::kLowerBound];
    r.figures = FiguresOf(std::move(r.figures.metrics),
                          LowerBound{lb["compute_alone_ns"].get<double>(), lb["comm_alone_ns"].get<double>()});
  }
  return r;
}

Result<RunRecord> LoadRunRecord(const Store& store, int64_t run) {
  BRAID_ASSIGN_OR_RETURN(auto stored, store.GetRun(run));
  BRAID_ASSIGN_OR_RETURN(auto rows, store.LoadMetrics(run));
  return RecordOfStored(stored, rows);
}

}  // namespace braid
