#include "tune_command.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "backend_choice.h"
#include "braid/layer_workload.h"
#include "braid/metric_rows.h"
#include "braid/presets.h"
#include "braid/search_space.h"
#include "braid/sim_guide.h"
#include "braid/te_default.h"
#include "braid/sim_backend.h"
#include "cli_exit.h"
#include "run_command.h"
#include "run_report.h"
#include "store_access.h"
#include "store_trial_runner.h"
#include "tune_progress.h"
#include "tune_report.h"
#include "workload_flags.h"

#ifndef BRAID_VERSION
#define BRAID_VERSION "unknown"
#endif

namespace braid::cli {

void AddTuneOptions(CLI::App* sub, TuneArgs* a) {
  sub->add_option("--backend", a->backend, "sim | cpu | cuda")->capture_default_str();
  AddWorkloadOptions(sub, &a->workload, "tune every TP GEMM of a model's block: built-in name or .toml file");
  sub->add_option("--topology", a->topology, "built-in name or .toml file")->capture_default_str();
  sub->add_option("--strategy", a->strategy,
                  "exhaustive | random | halving | guided (default: exhaustive on sim, guided elsewhere)");
  a->budget_option = sub->add_option("--budget", a->budget, "most trials per op (default: the strategy's plan)");
  sub->add_option("--time-budget", a->time_budget_s, "seconds for the whole command, shared among the ops");
  a->iters_option = sub->add_option("--iters", a->iters, "timed iterations of a full measurement (default: sim 1, else 20)");
  a->warmup_option = sub->add_option("--warmup", a->warmup, "warm-up iterations of a full measurement (default: sim 0, else 2)");
  sub->add_option("--db", a->db, "SQLite store that records every trial")->capture_default_str();
  sub->add_flag("--resume", a->resume, "continue the latest unfinished session of the same tuning request");
  sub->add_option("--session", a->session, "with --resume: the session to continue");
  sub->add_option("--out", a->out, "preset file to merge the winners into (created if absent)")->required();
  sub->add_flag("--json", a->json, "print one JSON object");
  sub->add_flag("--no-progress", a->no_progress, "no progress on stderr");
  sub->add_option("--link-gbps", a->link_gbps, "cpu: pace transfers at this Gbit/s per rank pair");
  sub->add_option("--link-latency-us", a->link_latency_us, "cpu: added latency per message");
  sub->add_option("--seed", a->seed, "input data seed; random strategy's sample")->capture_default_str();
}

namespace {

struct Target {
  std::string name;  // "fc1" or "gemm_rs"
  Workload w;
  std::string layer;
};

// The ops to tune and the session's workload key.
Result<std::vector<Target>> TargetsOf(const TuneArgs& a, std::string* key) {
  const WorkloadArgs& r = a.workload;
  BRAID_RETURN_IF_ERROR(CheckWorkloadForm(r));
  if (r.tp < 2 && !r.model.empty()) {
    return Status::Invalid("model " + r.model + " has no TP GEMMs at --tp " + std::to_string(r.tp) +
                           ": without tensor parallelism there is no communication to overlap");
  }
  if (r.tp < 2) {
    return Status::Invalid("--tp " + std::to_string(r.tp) + ": tuning needs at least 2 ranks (nothing to overlap)");
  }
  std::vector<Target> targets;
  if (r.model.empty()) {
    auto w = WorkloadFromFlags(r.op, r.m, r.n, r.k, r.tp, r.dtype);
    if (!w.ok()) return w.status();
    targets.push_back({std::string(OpName(w->op)), *w, ""});
    *key = w->Describe();
    return targets;
  }
  auto lw = LayerFromArgs(r);
  if (!lw.ok()) return lw.status();
  for (const LayerOp& op : lw->ops) {
    if (op.kind == LayerOpKind::kTpGemm) targets.push_back({op.name, op.gemm, lw->model.name + "/" + op.name});
  }
  if (targets.empty()) {
    return Status::Invalid("model " + lw->model.name + " has no TP GEMMs to tune (" + lw->Describe() + ")");
  }
  *key = lw->Describe();
  return targets;
}

Status CheckOptions(const TuneArgs& a) {
  if (a.budget_option && a.budget_option->count() > 0 && a.budget < 1) {
    return Status::Invalid("--budget must be at least 1 trial (got " + std::to_string(a.budget) + ")");
  }
  if (a.time_budget_s < 0) return Status::Invalid("--time-budget must not be negative");
  const bool iters_given = a.iters_option && a.iters_option->count() > 0;
  const bool warmup_given = a.warmup_option && a.warmup_option->count() > 0;
  if (iters_given && a.iters < 1) return Status::Invalid("--iters must be at least 1");
  if (warmup_given && a.warmup < 0) return Status::Invalid("--warmup must not be negative");
  if (a.link_gbps < 0) return Status::Invalid("--link-gbps must not be negative");
  if (a.link_latency_us < 0) return Status::Invalid("--link-latency-us must not be negative");
  if (a.link_latency_us > 0 && a.link_gbps == 0) return Status::Invalid("--link-latency-us needs --link-gbps");
  if ((a.link_gbps > 0) && a.backend != "cpu") return Status::Invalid("--link-gbps applies to the cpu backend only");
  if (a.session != 0 && !a.resume) return Status::Invalid("--session names the session --resume continues");
  if (a.out.empty()) return Status::Invalid("--out needs a file name");
  if (a.db.empty()) return Status::Invalid("--db needs a file name");
  return Status::Ok();
}

// The preset file must be one (or absent) and its directory writable, before
// anything is measured.
Result<PresetFile> ExistingPresets(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto f = LoadPresetFile(path);
    if (!f.ok()) return f.status();
    return *f;
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Invalid("--out " + path + ": directory " + dir.string() + " does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("--out " + path + ": directory " + dir.string() + " is not writable");
  }
  return PresetFile{};
}

Result<int64_t> FindOrCreateSession(Store& store, const TuneArgs& a, const SessionInfo& info, bool* resumed) {
  *resumed = false;
  if (!a.resume) return store.CreateSession(info);
  auto sessions = store.ListSessions();
  if (!sessions.ok()) return sessions.status();
  for (auto it = sessions->rbegin(); it != sessions->rend(); ++it) {
    const StoredSession& s = *it;
    if (a.session != 0 && s.id != a.session) continue;
    const bool same = s.info.workload_key == info.workload_key && s.info.topology == info.topology &&
                      s.info.backend == info.backend && s.info.strategy == info.strategy &&
                      s.info.options_json == info.options_json;
    if (a.session != 0 && !same) {
      return Status::Invalid("tuning session " + std::to_string(a.session) + " in " + a.db +
                             " was another request (" + s.info.workload_key + " on " + s.info.topology + ", " +
                             s.info.backend + ", " + s.info.strategy + ", options " + s.info.options_json + ")");
    }
    if (!same) continue;
    if (s.status == "done") {
      if (a.session != 0) {
        return Status::Invalid("tuning session " + std::to_string(a.session) + " in " + a.db + " is already done");
      }
      continue;
    }
    BRAID_RETURN_IF_ERROR(store.SetSessionStatus(s.id, "running"));
    *resumed = true;
    return s.id;
  }
  if (a.session != 0) return Status::Invalid("no tuning session " + std::to_string(a.session) + " in " + a.db);
  return Status::Invalid("no unfinished tuning session of this request in " + a.db +
                         " to resume (run without --resume to start one)");
}

// Overlap ratio and tail of a stored run (p50 of the worst rank).
void FiguresOfRun(const Store& store, int64_t run, TuneResult* r) {
  if (run < 0) return;
  auto rows = store.LoadMetrics(run);
  if (!rows.ok() || rows->empty()) return;
  const RunMetrics m = RunMetricsFromRows(*rows);
  r->overlap_ratio = m.overall[Metric::kOverlapRatio].p50;
  r->tail_ns = m.overall[Metric::kTail].p50;
}

}  // namespace

int ExecuteTune(const TuneArgs& a) {
  if (Status s = CheckOptions(a); !s.ok()) return ReportError("tune", s);
  const std::string strategy_name = a.strategy.empty() ? (a.backend == "sim" ? "exhaustive" : "guided") : a.strategy;
  auto strategy = ParseStrategy(strategy_name);
  if (!strategy.ok()) return ReportError("tune", strategy.status());
  std::string workload_key;
  auto targets = TargetsOf(a, &workload_key);
  if (!targets.ok()) return ReportError("tune", targets.status());
  auto hw = LoadSimHardware(a.topology);  // the GPU file gives the SM count the space respects
  if (!hw.ok()) return ReportError("tune", hw.status());
  const Topology* topo = &hw->topo;
  const GpuSpec* gpu = &hw->gpu;
  if (Status s = topo->CheckFits(a.workload.tp); !s.ok()) return ReportError("tune", s);
  auto knobs = KnobsOfBackend(a.backend);
  if (!knobs.ok()) return ReportError("tune", knobs.status());
  auto existing = ExistingPresets(a.out);
  if (!existing.ok()) return ReportError("tune", existing.status());
  if (Status s = CheckStoreWritable(a.db); !s.ok()) return ReportError("tune", s);
  auto backend = MakeBackend(a.backend, a.topology, CpuBackendOptions{a.link_gbps, a.link_latency_us});
  if (!backend.ok()) return ReportError("tune", backend.status());

  const bool deterministic = a.backend == "sim";
  SearchOptions so;
  so.strategy = *strategy;
  so.iters = a.iters_option->count() > 0 ? a.iters : (deterministic ? 1 : 20);
  so.warmup = a.warmup_option->count() > 0 ? a.warmup : (deterministic ? 0 : 2);
  so.budget = a.budget;
  so.seed = a.seed;
  // A deterministic backend repeats itself: nothing to recheck.
  if (deterministic) so.recheck_max = 1;

  const nlohmann::json options = {{"iters", so.iters},           {"warmup", so.warmup},
                                  {"budget", so.budget},         {"time_budget_s", a.time_budget_s},
                                  {"seed", a.seed},              {"link_gbps", a.link_gbps},
                                  {"link_latency_us", a.link_latency_us}};
  const SessionInfo info{workload_key, topo->name, a.backend, std::string(StrategyName(*strategy)), so.budget,
                         options.dump()};
  auto store = OpenStoreForWrite(a.db);
  if (!store.ok()) return ReportError("tune", store.status());
  bool resumed = false;
  auto session = FindOrCreateSession(**store, a, info, &resumed);
  if (!session.ok()) return ReportError("tune", session.status());
  auto recorded = RecordedTrials(**store, *session);
  if (!recorded.ok()) return ReportError("tune", recorded.status());

  RunOptions base;
  base.seed = a.seed;
  StoreTrialRunner runner(**store, *session, **backend, topo->name, base, &*recorded);
  TuneProgress progress(stderr, isatty(STDERR_FILENO) == 1, !a.no_progress);
  if (resumed && !a.no_progress) {
    std::fprintf(stderr, "resuming tuning session %lld: %zu trials recorded\n", (long long)*session, recorded->size());
  }

  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(a.time_budget_s));
  TuneSummary summary;
  summary.session = *session;
  summary.workload = workload_key;
  summary.topology = topo->name;
  summary.gpu = topo->gpu;
  summary.backend = a.backend;
  summary.strategy = std::string(StrategyName(*strategy));
  summary.out = a.out;

  for (size_t i = 0; i < targets->size(); ++i) {
    const Target& t = (*targets)[i];
    runner.SetTarget(t.name, t.w, t.layer);
    if (a.time_budget_s > 0) {
      // What is left, shared evenly among the ops still to tune.
      const auto left = deadline - std::chrono::steady_clock::now();
      runner.SetDeadline(std::chrono::steady_clock::now() + left / long(targets->size() - i));
    }
    const std::vector<OverlapConfig> space = BuildSearchSpace(t.w, *knobs, gpu->sm_count);
    SearchOptions opt = so;
    if (*strategy == Strategy::kGuided) {
      auto guide = MakeSimGuide(t.w, a.topology);
      if (!guide.ok()) return ReportError("tune", guide.status());
      opt.guide = *guide;
    }
    progress.StartTarget(t.name + " (" + std::to_string(i + 1) + "/" + std::to_string(targets->size()) + ")");
    opt.on_trial = [&](const SearchProgress& p) { progress.Update(p, space[p.best].Describe()); };
    auto outcome = Search(space, runner, opt);
    if (!outcome.ok()) {
      (void)(*store)->SetSessionStatus(*session, "interrupted");
      return ReportError("tune", outcome.status());
    }
    // Baselines, measured like any candidate (replayed when already measured).
    const TeDefault te = TeDefaultConfig(t.w);
    auto serial = runner.Measure(0, OverlapConfig{}, so.warmup, so.iters, "full");
    if (!serial.ok()) return ReportError("tune", serial.status());
    auto te_m = runner.Measure(0, te.config, so.warmup, so.iters, "full");
    if (!te_m.ok()) return ReportError("tune", te_m.status());

    TuneResult r;
    r.op = t.name;
    r.layer = t.layer;
    r.workload = t.w;
    r.config = space[outcome->best];
    r.time_ns = outcome->best_measurement.median_ns;
    r.ci_low_ns = outcome->best_measurement.ci_low_ns;
    r.ci_high_ns = outcome->best_measurement.ci_high_ns;
    r.serial_ns = serial->median_ns;
    r.te_default = te.config;
    r.te_note = te.note;
    r.te_default_ns = te_m->median_ns;
    r.candidates = int(space.size());
    r.trials = int(outcome->trials.size()) + 2;
    r.iterations = outcome->iterations + serial->iterations + te_m->iterations;
    r.stopped_by = outcome->stopped_by_time ? "time" : outcome->stopped_by_budget ? "trial" : "";
    FiguresOfRun(**store, runner.RunOf(r.config, "full"), &r);
    progress.FinishTarget(r.config.Describe() + " " + FormatDuration(r.time_ns));
    summary.results.push_back(std::move(r));
  }
  if (Status s = (*store)->SetSessionStatus(*session, "done"); !s.ok()) return ReportError("tune", s);
  auto trials = (*store)->ListTrials(*session);
  if (!trials.ok()) return ReportError("tune", trials.status());
  summary.trials = int(trials->size());
  summary.measured = runner.measured();
  summary.replayed = runner.replayed();

  PresetFile merged = *existing;
  const PresetFile update = PresetsOf(summary, BRAID_VERSION, NowIso8601());
  if (Status s = MergeInto(merged, update); !s.ok()) return ReportError("tune", s);
  if (Status s = SavePresetsAtomically(a.out, merged); !s.ok()) return ReportError("tune", s);
  summary.presets_written = int(update.presets.size());

  if (a.json) {
    std::cout << TuneJson(summary).dump(2) << "\n";
  } else {
    std::cout << TuneTable(summary);
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace braid::cli
