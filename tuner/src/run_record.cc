#include "braid/run_record.h"

#include <unistd.h>

#include <climits>
#include <exception>
#include <utility>

#include "braid/metric_rows.h"
#include "braid/version.h"

namespace braid {

namespace {

using Json = nlohmann::json;

Status Damaged(long long run, const std::string& what) {
  return Status::Invalid("damaged store: run " + std::to_string(run) + " has " + what);
}

// Checks the notes fields the reports read, so printing cannot meet a type
// it does not expect. Unknown keys are left alone.
Status CheckNotes(long long run, const Json& n) {
  auto bad = [&](const char* key, const char* want) {
    return Damaged(run, std::string("notes field '") + key + "' that is not " + want);
  };
  if (!n.is_object()) return Damaged(run, "notes JSON that is not an object");
  if (n.contains("compute_dtype") && !n["compute_dtype"].is_string()) return bad("compute_dtype", "a string");
  if (n.contains("notes")) {
    if (!n["notes"].is_array()) return bad("notes", "an array of strings");
    for (const Json& s : n["notes"]) {
      if (!s.is_string()) return bad("notes", "an array of strings");
    }
  }
  if (n.contains("verify") && !n["verify"].is_null()) {
    const Json& v = n["verify"];
    if (!v.is_object() || !v.value("ok", Json()).is_boolean() || !v.value("max_rel_error", Json()).is_number() ||
        !v.value("worst_rank", Json()).is_number_integer()) {
      return bad("verify", "{ok, max_rel_error, worst_rank} or null");
    }
  }
  if (n.contains("link_emulation")) {
    const Json& l = n["link_emulation"];
    if (!l.is_object() || !l.value("gbps", Json()).is_number() || !l.value("latency_us", Json()).is_number()) {
      return bad("link_emulation", "{gbps, latency_us}");
    }
  }
  if (n.contains("lower_bound")) {
    const Json& l = n["lower_bound"];
    if (!l.is_object() || !l.value("compute_alone_ns", Json()).is_number() ||
        !l.value("comm_alone_ns", Json()).is_number()) {
      return bad("lower_bound", "{compute_alone_ns, comm_alone_ns, lower_bound_ns}");
    }
  }
  if (n.contains("layer")) {
    const Json& l = n["layer"];
    if (!l.is_object() || !l.value("describe", Json()).is_string() || !l.value("ops", Json()).is_array()) {
      return bad("layer", "{describe, ops[], ...}");
    }
  }
  if (n.contains("hta")) {
    if (!n["hta"].is_array()) return bad("hta", "an array");
    for (const Json& h : n["hta"]) {
      if (!h.is_object() || !h.value("rank", Json()).is_number_integer()) return bad("hta", "an array of {rank, ...}");
      for (const char* key : {"overlap_pct", "idle_pct", "compute_pct"}) {
        if (h.contains(key) && !h[key].is_number()) return bad("hta", "an array of numeric figures");
      }
    }
  }
  return Status::Ok();
}

Result<int> IntField(const Json& j, const char* key, int fallback) {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  if (!v.is_number_integer() || v.get<int64_t>() < INT_MIN || v.get<int64_t>() > INT_MAX) {
    return Status::Invalid(std::string("'") + key + "' is not an integer");
  }
  return int(v.get<int64_t>());
}

Result<std::string> StringField(const Json& j, const char* key, const char* fallback) {
  if (!j.contains(key)) return std::string(fallback);
  if (!j[key].is_string()) return Status::Invalid(std::string("'") + key + "' is not a string");
  return j[key].get<std::string>();
}

Result<OverlapConfig> ParseConfig(const Json& j) {
  if (!j.is_object()) return Status::Invalid("the config is not an object");
  if (!j.contains("algorithm")) return Status::Invalid("'algorithm' is missing");
  OverlapConfig c;
  auto algorithm = StringField(j, "algorithm", "");
  if (!algorithm.ok()) return algorithm.status();
  auto a = ParseAlgorithm(*algorithm);
  if (!a.ok()) return a.status();
  c.algorithm = *a;
  auto chunks = IntField(j, "chunks", 1);
  if (!chunks.ok()) return chunks.status();
  c.chunks = *chunks;
  if (j.contains("splits")) {
    if (!j["splits"].is_array()) return Status::Invalid("'splits' is not an array of integers");
    for (const Json& s : j["splits"]) {
      if (!s.is_number_integer() || s.get<int64_t>() < 1 || s.get<int64_t>() > INT_MAX) {
        return Status::Invalid("'splits' is not an array of positive integers");
      }
      c.splits.push_back(int(s.get<int64_t>()));
    }
  }
  auto streams = IntField(j, "streams", 1);
  if (!streams.ok()) return streams.status();
  c.comm_lanes = *streams;
  auto sms = IntField(j, "comm_sms", 0);
  if (!sms.ok()) return sms.status();
  c.comm_sms = *sms;
  auto engine = StringField(j, "comm_engine", "sm");
  if (!engine.ok()) return engine.status();
  auto e = ParseCommEngine(*engine);
  if (!e.ok()) return e.status();
  c.comm_engine = *e;
  auto priority = StringField(j, "comm_priority", "high");
  if (!priority.ok()) return priority.status();
  if (*priority != "high" && *priority != "normal") return Status::Invalid("'comm_priority' is not high or normal");
  c.comm_high_priority = *priority == "high";
  BRAID_RETURN_IF_ERROR(c.ValidateKnobs());
  return c;
}

}  // namespace

Json ConfigJson(const OverlapConfig& c) {
  return {{"algorithm", AlgorithmName(c.algorithm)},
          {"chunks", c.chunks},
          {"splits", c.splits},
          {"streams", c.comm_lanes},
          {"comm_sms", c.comm_sms},
          {"comm_engine", CommEngineName(c.comm_engine)},
          {"comm_priority", c.comm_high_priority ? "high" : "normal"}};
}

Result<OverlapConfig> ConfigFromJson(const Json& j) {
  try {
    return ParseConfig(j);
  } catch (const std::exception& e) {  // nlohmann's accessors; not expected after the type checks
    return Status::Invalid(std::string("the config does not parse: ") + e.what());
  }
}

RunRecord RecordOfRun(const Plan& plan, const std::string& topology, std::string_view backend,
                      const RunOptions& options, const RunOutput& output, std::optional<LowerBound> lower_bound) {
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
  r.notes["verify"] =
      v.ran ? Json{{"ok", v.ok}, {"max_rel_error", v.max_rel_error}, {"worst_rank", v.worst_rank}} : Json(nullptr);
  double link_gbps = 0, link_latency_us = 0;
  for (const auto& [name, value] : output.settings) {
    if (name == "link_gbps") link_gbps = value;
    if (name == "link_latency_us") link_latency_us = value;
  }
  if (link_gbps > 0) r.notes["link_emulation"] = {{"gbps", link_gbps}, {"latency_us", link_latency_us}};
  r.notes["seed"] = options.seed;
  if (lower_bound) {
    r.notes["lower_bound"] = {{"compute_alone_ns", lower_bound->compute_alone_ns},
                              {"comm_alone_ns", lower_bound->comm_alone_ns},
                              {"lower_bound_ns", lower_bound->lower_bound_ns()}};
  }
  r.figures = FiguresOf(ComputeRunMetrics(output.events), lower_bound);
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
  m.braid_version = std::string(BraidVersion());
  m.git_revision = std::string(BraidGitRevision());
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
  r.config = Json::parse(run.meta.config_json, nullptr, false);
  r.notes = Json::parse(run.meta.notes_json, nullptr, false);
  if (r.config.is_discarded()) return Damaged(run.id, "config JSON that does not parse");
  if (r.notes.is_discarded()) return Damaged(run.id, "notes JSON that does not parse");
  // Imported traces have no config ({}); every other run must have a whole one.
  if (!(r.config.is_object() && r.config.empty() && r.source == "imported")) {
    Result<OverlapConfig> c = ConfigFromJson(r.config);
    if (!c.ok()) return Damaged(run.id, "a config JSON that is not Braid's: " + c.status().message());
  }
  try {
    BRAID_RETURN_IF_ERROR(CheckNotes(run.id, r.notes));
  } catch (const std::exception& e) {
    return Damaged(run.id, std::string("notes JSON that does not parse: ") + e.what());
  }
  r.figures = RunFiguresFromRows(rows);
  // Runs stored before the lower bound had rows of its own keep it in notes.
  if (!r.figures.lower_bound && r.notes.contains("lower_bound")) {
    const Json& lb = r.notes["lower_bound"];
    r.figures = FiguresOf(std::move(r.figures.metrics),
                          LowerBound{lb["compute_alone_ns"].get<double>(), lb["comm_alone_ns"].get<double>()});
  }
  return r;
}

Result<RunRecord> LoadRunRecord(const Store& store, int64_t run) {
  Result<StoredRun> stored = store.GetRun(run);
  if (!stored.ok()) return stored.status();
  Result<std::vector<MetricRow>> rows = store.LoadMetrics(run);
  if (!rows.ok()) return rows.status();
  return RecordOfStored(*stored, *rows);
}

}  // namespace braid
