#include "report_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "braid/gemm_keys.h"
#include "braid/run_record.h"
#include "braid/store.h"
#include "braid/stored_text.h"
#include "cli_exit.h"
#include "gemm_report.h"
#include "pass_times.h"
#include "run_compare.h"
#include "run_report.h"
#include "store_access.h"

namespace braid::cli {

void AddReportOptions(CLI::App* sub, ReportArgs* a) {
  sub->add_option("--db", a->db, "SQLite store")->capture_default_str();
  a->run_option = sub->add_option("--run", a->run, "one run's metrics (default: list the runs)");
  sub->add_option("--compare", a->compare, "two runs' metrics side by side: --compare A B")->expected(2);
  sub->add_option("--session", a->session, "list only the runs of this tuning session's trials");
  sub->add_option("--backend", a->backend, "list only runs of this backend (sim, cpu, cuda, imported ...)");
  sub->add_option("--op", a->op, "list only runs of this op (ag_gemm, gemm_rs, gemm_ar)");
  sub->add_option("--limit", a->limit, "list at most this many runs (after sorting)");
  sub->add_option("--sort", a->sort, "id | makespan | overlap | exposed | tail | efficiency")->capture_default_str();
  sub->add_flag("--json", a->json, "print one JSON object");
  sub->add_flag("--by-gemm", a->by_gemm,
                "with --run: per GEMM, its communication (NCCL, TE userbuffers, PyTorch symmetric memory, "
                "copy-engine peer copies), how much ran under it, the overlap method seen and a verdict");
  a->rank_option = sub->add_option("--rank", a->rank, "--by-gemm: the rank the table shows (default: the first)");
  a->iteration_option =
      sub->add_option("--iteration", a->iteration, "--by-gemm: the iteration the table shows (default: its last)");
  sub->add_option("--ub-cfgs", a->ub_cfgs,
                  "--by-gemm: a TransformerEngine ub_cfgs YAML to check the trace against: per key, did the method it "
                  "names (or TE's default) show in the trace's GEMMs of that key");
  sub->add_option("--model", a->model,
                  "--by-gemm: the model the trace ran (built-in name or file): maps its GEMMs to keys by shape and "
                  "shows Braid's prediction beside each");
  sub->add_option("--seq", a->seq, "--model: sequence length of the traced step");
  sub->add_option("--batch", a->batch, "--model: micro-batch size")->capture_default_str();
  sub->add_option("--phase", a->phase, "--model: train | prefill | decode")->capture_default_str();
  sub->add_option("--dtype", a->dtype, "--model: GEMM input dtype")->capture_default_str();
  a->tp_option =
      sub->add_option("--tp", a->tp, "--by-gemm: the trace's TP size (default: its ranks); must divide the ranks");
  sub->add_option("--topology", a->topology, "--model: the hardware the sim predicts on")->capture_default_str();
  sub->add_option("--preset", a->preset,
                  "--model: predict with this preset file's configs (default: the --ub-cfgs file's, else serial)");
}

namespace {

struct Listed {
  StoredRun run;
  RunFigures figures;
  nlohmann::json config;  // decoded by the store's codec ({} for imported runs)
};

// Sort keys: smaller is better for times, larger for overlap and efficiency.
Status SortRuns(std::vector<Listed>* runs, const std::string& key) {
  auto by = [&](auto value, bool descending) {
    std::stable_sort(runs->begin(), runs->end(), [&](const Listed& a, const Listed& b) {
      return descending ? value(a) > value(b) : value(a) < value(b);
    });
  };
  auto overall = [](Metric m) { return [m](const Listed& l) { return l.figures.metrics.overall[m].p50; }; };
  if (key == "id") return Status::Ok();
  if (key == "makespan")
    by(overall(Metric::kMakespan), false);
  else if (key == "exposed")
    by(overall(Metric::kExposedComm), false);
  else if (key == "tail")
    by(overall(Metric::kTail), false);
  else if (key == "overlap")
    by(overall(Metric::kOverlapRatio), true);
  else if (key == "efficiency")
    by([](const Listed& l) { return l.figures.lower_bound ? l.figures.efficiency.p50 : -1.0; }, true);
  else
    return Status::Invalid("--sort " + OneLine(key) + ": not one of id, makespan, overlap, exposed, tail, efficiency");
  return Status::Ok();
}

Status CheckArgs(const ReportArgs& a) {
  if (a.run_option && a.run_option->count() > 0 && a.run < 1) {
    return Status::Invalid("--run " + std::to_string(a.run) + ": run ids start at 1");
  }
  if (!a.compare.empty() && a.compare.size() != 2) {
    return Status::Invalid("--compare takes two run ids, A B (got " + std::to_string(a.compare.size()) + ")");
  }
  for (long long id : a.compare) {
    if (id < 1) return Status::Invalid("--compare " + std::to_string(id) + ": run ids start at 1");
  }
  if (!a.compare.empty() && a.run_option && a.run_option->count() > 0) {
    return Status::Invalid("--run and --compare do not go together");
  }
  if (a.limit < 0) return Status::Invalid("--limit must not be negative");
  const bool run_given = a.run_option && a.run_option->count() > 0;
  if (a.by_gemm && !run_given) return Status::Invalid("--by-gemm reports one run: give --run N");
  const bool rank_given = a.rank_option && a.rank_option->count() > 0;
  const bool iteration_given = a.iteration_option && a.iteration_option->count() > 0;
  if ((rank_given || iteration_given) && !a.by_gemm) return Status::Invalid("--rank and --iteration go with --by-gemm");
  if (!a.ub_cfgs.empty() && !a.by_gemm) return Status::Invalid("--ub-cfgs goes with --by-gemm");
  const bool tp_given = a.tp_option && a.tp_option->count() > 0;
  if ((!a.model.empty() || tp_given) && !a.by_gemm) return Status::Invalid("--model and --tp go with --by-gemm");
  if (a.model.empty() && (!a.seq.empty() || !a.preset.empty())) {
    return Status::Invalid("--seq and --preset describe the block: give --model too");
  }
  if (!a.model.empty() && a.seq.empty()) return Status::Invalid("--model needs --seq (the traced step's sequence)");
  if (!a.preset.empty() && !a.ub_cfgs.empty()) {
    return Status::Invalid("--preset and --ub-cfgs both configure the prediction: give one");
  }
  if (tp_given && a.tp < 1) return Status::Invalid("--tp must be at least 1");
  if (rank_given && a.rank < 0) return Status::Invalid("--rank must not be negative");
  if (iteration_given && a.iteration < 0) return Status::Invalid("--iteration must not be negative");
  if (a.session < 0) return Status::Invalid("--session ids start at 1");
  if (!a.op.empty() && a.op != "ag_gemm" && a.op != "gemm_rs" && a.op != "gemm_ar") {
    return Status::Invalid("--op " + OneLine(a.op) + ": not one of ag_gemm, gemm_rs, gemm_ar");
  }
  std::vector<Listed> none;
  return SortRuns(&none, a.sort);
}

// The runs of the store that pass the filters, with their figures.
Result<std::vector<Listed>> ListRuns(const Store& store, const ReportArgs& a) {
  BRAID_ASSIGN_OR_RETURN(auto runs, store.ListRuns());
  std::set<int64_t> of_session;
  if (a.session > 0) {
    BRAID_ASSIGN_OR_RETURN(auto session, store.GetSession(a.session));
    BRAID_ASSIGN_OR_RETURN(auto trials, store.ListTrials(a.session));
    for (const StoredTrial& t : trials) {
      if (t.trial.run) of_session.insert(*t.trial.run);
    }
  }
  std::vector<Listed> out;
  for (const StoredRun& r : runs) {
    if (a.session > 0 && !of_session.count(r.id)) continue;
    if (!a.backend.empty() && r.meta.backend != a.backend) continue;
    if (!a.op.empty() && (!r.meta.has_workload || OpName(r.meta.workload.op) != a.op)) continue;
    BRAID_ASSIGN_OR_RETURN(auto rows, store.LoadMetrics(r.id));
    auto rec = RecordOfStored(r, rows);  // refuses damaged JSON before anything is printed
    if (!rec.ok()) return rec.status();
    out.push_back({r, std::move(rec->figures), std::move(rec->config)});
  }
  BRAID_RETURN_IF_ERROR(SortRuns(&out, a.sort));
  if (a.limit > 0 && out.size() > size_t(a.limit)) out.resize(size_t(a.limit));
  return out;
}

std::string ConfigText(const nlohmann::json& config) {
  Result<OverlapConfig> c = ConfigFromJson(config);
  return c.ok() ? c->Describe() : "-";
}

std::string WorkloadText(const StoredRun& r) {
  return r.meta.has_workload ? r.meta.workload.Describe() : "trace, " + std::to_string(r.meta.workload.tp) + " rank(s)";
}

nlohmann::json ListJson(const std::vector<Listed>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const Listed& l : runs) {
    const StoredRun& r = l.run;
    nlohmann::json j = {{"run", r.id},
                        {"backend", r.meta.backend},
                        {"status", r.status},
                        {"source", r.meta.source},
                        {"created_at", r.created_at},
                        {"topology", r.meta.topology},
                        {"events", r.event_count}};
    const Workload& w = r.meta.workload;
    j["workload"] = r.meta.has_workload
                        ? nlohmann::json{{"op", OpName(w.op)},          {"m", w.m},  {"n", w.n}, {"k", w.k},
                                         {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}}
                        : nlohmann::json(nullptr);
    j["config"] = l.config;
    const MetricSummary& s = l.figures.metrics.overall;
    j["figures"] = {
        {"makespan_ns", s[Metric::kMakespan].p50},
        {"overlap_ratio", s[Metric::kOverlapRatio].p50},
        {"exposed_comm_ns", s[Metric::kExposedComm].p50},
        {"tail_ns", s[Metric::kTail].p50},
        {"efficiency", l.figures.lower_bound ? nlohmann::json(l.figures.efficiency.p50) : nlohmann::json(nullptr)}};
    list.push_back(std::move(j));
  }
  return {{"runs", list}};
}

// Each column as wide as its widest cell plus two spaces, so a long config
// or workload never runs into the next column.
std::string ListTable(const std::vector<Listed>& runs) {
  std::vector<std::vector<std::string>> rows = {
      {"run", "backend", "workload", "config", "makespan", "overlap", "exposed", "tail", "efficiency"}};
  char buf[32];
  for (const Listed& l : runs) {
    const StoredRun& r = l.run;
    const MetricSummary& s = l.figures.metrics.overall;
    std::snprintf(buf, sizeof buf, "%.3f", s[Metric::kOverlapRatio].p50);
    std::string overlap = buf;
    std::string efficiency = "-";
    if (l.figures.lower_bound) {
      std::snprintf(buf, sizeof buf, "%.3f", l.figures.efficiency.p50);
      efficiency = buf;
    }
    rows.push_back({std::to_string(r.id), r.meta.backend, WorkloadText(r), ConfigText(l.config),
                    FormatDuration(s[Metric::kMakespan].p50), overlap, FormatDuration(s[Metric::kExposedComm].p50),
                    FormatDuration(s[Metric::kTail].p50), efficiency});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], DisplayColumns(row[c]) + 2);
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t c = 0; c + 1 < row.size(); ++c) out += Pad(row[c], width[c]);
    out += row.back() + "\n";
  }
  if (runs.empty()) out += "(no runs)\n";
  return out;
}

// Layer runs are compared pass by pass too; that reads their events.
Result<PassTimes> PassTimesOf(const Store& store, const RunRecord& a, const RunRecord& b) {
  PassTimes out;
  if (LayerNote(a.notes) == nullptr || LayerNote(b.notes) == nullptr) return out;
  BRAID_ASSIGN_OR_RETURN(auto ea, store.LoadEvents(a.run_id));
  out.a = PassBusyNs(ea, a.notes);
  BRAID_ASSIGN_OR_RETURN(auto eb, store.LoadEvents(b.run_id));
  out.b = PassBusyNs(eb, b.notes);
  return out;
}

// The trace's TP size: --tp, which must divide its ranks, else its ranks;
// a ub_cfgs needs a TP group of at least two.
Result<int> TraceTp(const ReportArgs& a, const RunRecord& rec) {
  const int ranks = std::max(rec.workload.tp, 1);
  const bool tp_given = a.tp_option && a.tp_option->count() > 0;
  if (tp_given && (a.tp > ranks || ranks % a.tp != 0)) {
    return Status::Invalid("--tp " + std::to_string(a.tp) + " does not fit the trace: it holds " +
                           std::to_string(ranks) + " rank(s), which TP groups of " + std::to_string(a.tp) +
                           " do not divide");
  }
  const int tp = tp_given ? a.tp : ranks;
  if (!a.ub_cfgs.empty()) BRAID_RETURN_IF_ERROR(CheckUbCfgsHasTpGroup(a.ub_cfgs, tp, ranks));
  return tp;
}

int ReportByGemm(const Store& store, const ReportArgs& a, const RunRecord& rec) {
  auto tp = TraceTp(a, rec);
  if (!tp.ok()) return ReportError("report", tp.status());
  std::vector<UbKeyExpectation> te_keys;
  if (!a.ub_cfgs.empty()) {
    auto keys = UbKeyExpectationsOf(a.ub_cfgs);
    if (!keys.ok()) return ReportError("report", keys.status());
    te_keys = std::move(*keys);
  }
  std::optional<GemmPrediction> prediction;
  if (!a.model.empty()) {
    PredictionInputs in;
    in.workload.model = a.model;
    in.workload.seq = a.seq;
    in.workload.batch = a.batch;
    in.workload.phase = a.phase;
    in.workload.dtype = a.dtype;
    in.workload.tp = *tp;
    in.topology = a.topology;
    in.ub_cfgs = a.ub_cfgs;
    in.preset = a.preset;
    auto p = PredictBlock(in);
    if (!p.ok()) return ReportError("report", p.status());
    prediction = std::move(*p);
  }
  auto events = store.LoadEvents(a.run);
  if (!events.ok()) return ReportError("report", events.status());
  auto lanes = store.LoadLanes(a.run);
  if (!lanes.ok()) return ReportError("report", lanes.status());
  std::vector<TraceLane> trace_lanes;
  for (const LaneInfo& l : *lanes) trace_lanes.push_back({l.rank, l.lane, l.name});
  GemmOverlapReport report = AnalyzeGemmOverlap(*events, trace_lanes);
  if (prediction) AssignKeysByShape(&report, prediction->shapes, *tp);
  ExplainUnmapped(&report);
  const std::vector<TeKeyCheck> checks =
      te_keys.empty() ? std::vector<TeKeyCheck>{} : CheckTeUbCfgs(report, te_keys, *tp);
  if (a.json) {
    nlohmann::json j = GemmReportJson(a.run, report);
    j["tp"] = *tp;
    if (!a.ub_cfgs.empty()) j["ub_cfgs"] = TeChecksJson(checks);
    if (prediction) j["prediction"] = PredictionJson(report, *prediction);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  const bool rank_given = a.rank_option && a.rank_option->count() > 0;
  const bool iteration_given = a.iteration_option && a.iteration_option->count() > 0;
  auto table = GemmReportTable(a.run, report, rank_given ? std::optional<int>(a.rank) : std::nullopt,
                               iteration_given ? std::optional<int>(a.iteration) : std::nullopt);
  if (!table.ok()) return ReportError("report", table.status());
  std::cout << *table;
  if (!a.ub_cfgs.empty()) std::cout << TeChecksTable(a.ub_cfgs, checks);
  if (prediction) std::cout << PredictionTable(report, *prediction);
  return kExitOk;
}

}  // namespace

int ExecuteReport(const ReportArgs& a) {
  if (Status s = CheckArgs(a); !s.ok()) return ReportError("report", s);
  auto store = OpenStoreForRead(a.db);
  if (!store.ok()) return ReportError("report", store.status());
  if (!a.compare.empty()) {
    auto first = LoadRunRecord(**store, a.compare[0]);
    if (!first.ok()) return ReportError("report", first.status());
    auto second = LoadRunRecord(**store, a.compare[1]);
    if (!second.ok()) return ReportError("report", second.status());
    auto passes = PassTimesOf(**store, *first, *second);
    if (!passes.ok()) return ReportError("report", passes.status());
    std::cout
        << (a.json
                ? CompareJson(*first, *second, *passes).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                      "\n"
                : CompareTable(*first, *second, *passes));
    return kExitOk;
  }
  if (!a.run_option || a.run_option->count() == 0) {
    auto runs = ListRuns(**store, a);
    if (!runs.ok()) return ReportError("report", runs.status());
    std::cout << (a.json ? ListJson(*runs).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                         : ListTable(*runs));
    return kExitOk;
  }
  auto rec = LoadRunRecord(**store, a.run);
  if (!rec.ok()) return ReportError("report", rec.status());
  if (a.by_gemm) return ReportByGemm(**store, a, *rec);
  std::cout << (a.json ? RunJson(*rec).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                       : RunTable(*rec));
  return kExitOk;
}

}  // namespace braid::cli
