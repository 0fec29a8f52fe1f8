#include "tune_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "backend_choice.h"
#include "braid/layer_workload.h"
#include "braid/metric_rows.h"
#include "braid/presets.h"
#include "braid/search_space.h"
#include "braid/sim_backend.h"
#include "braid/sim_guide.h"
#include "braid/tune.h"
#include "braid/version.h"
#include "cli_exit.h"
#include "run_command.h"
#include "run_report.h"
#include "store_access.h"
#include "tune_progress.h"
#include "tune_report.h"
#include "workload_flags.h"

namespace braid::cli {

void AddTuneOptions(CLI::App* sub, TuneArgs* a) {
  sub->add_option("--backend", a->backend, "sim | cpu | cuda")->capture_default_str();
  AddWorkloadOptions(sub, &a->workload, "tune every TP GEMM of a model's block: built-in name or .toml file");
  sub->add_option("--topology", a->topology, "built-in name or .toml file")->capture_default_str();
  sub->add_option("--strategy", a->strategy,
                  "exhaustive | random | halving | guided (default: exhaustive on sim, guided elsewhere)");
  a->budget_option = sub->add_option("--budget", a->budget, "most trials per op (default: the strategy's plan)");
  sub->add_option("--time-budget", a->time_budget_s, "seconds for the whole command, shared among the ops");
  a->iters_option =
      sub->add_option("--iters", a->iters, "timed iterations of a full measurement (default: sim 1, else 20)");
  a->warmup_option =
      sub->add_option("--warmup", a->warmup, "warm-up iterations of a full measurement (default: sim 0, else 2)");
  sub->add_option("--db", a->db, "SQLite store that records every trial")->capture_default_str();
  sub->add_flag("--resume", a->resume, "continue the latest unfinished session of the same tuning request");
  sub->add_option("--session", a->session, "with --resume: the session to continue");
  sub->add_option("--out", a->out, "preset file to merge the winners into (created if absent)")->required();
  sub->add_flag("--json", a->json, "print one JSON object");
  sub->add_flag("--no-progress", a->no_progress, "no progress on stderr");
  sub->add_option("--link-gbps", a->link_gbps, "cpu: pace transfers at this Gbit/s per rank pair");
  AddCudaOptions(sub, &a->cuda);
  sub->add_option("--link-latency-us", a->link_latency_us, "cpu: added latency per message");
  sub->add_option("--seed", a->seed, "input data seed; random strategy's sample")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v.find('-') == std::string::npos ? std::string() : "must not be negative";
          },
          "", "not negative"))
      ->capture_default_str();
}

namespace {

// The ops to tune and the session's workload key.
Result<std::vector<TuneTarget>> TargetsOf(const TuneArgs& a, std::string* key) {
  const WorkloadArgs& r = a.workload;
  BRAID_RETURN_IF_ERROR(CheckWorkloadForm(r));
  if (r.tp < 2 && !r.model.empty()) {
    return Status::Invalid("model " + r.model + " has no TP GEMMs at --tp " + std::to_string(r.tp) +
                           ": without tensor parallelism there is no communication to overlap");
  }
  if (r.tp < 2) {
    return Status::Invalid("--tp " + std::to_string(r.tp) + ": tuning needs at least 2 ranks (nothing to overlap)");
  }
  if (r.model.empty()) {
    auto w = WorkloadFromFlags(r.op, r.m, r.n, r.k, r.tp, r.dtype);
    if (!w.ok()) return w.status();
    *key = w->Describe();
    return std::vector<TuneTarget>{{std::string(OpName(w->op)), *w, ""}};
  }
  auto lw = LayerFromArgs(r);
  if (!lw.ok()) return lw.status();
  *key = lw->Describe();
  return TargetsOfLayer(*lw);
}

Status CheckOptions(const TuneArgs& a) {
  if (a.budget_option && a.budget_option->count() > 0 && a.budget < 1) {
    return Status::Invalid("--budget must be at least 1 trial (got " + std::to_string(a.budget) + ")");
  }
  if (!std::isfinite(a.time_budget_s) || a.time_budget_s < 0) {
    return Status::Invalid("--time-budget must be a finite number of seconds, not negative");
  }
  const bool iters_given = a.iters_option && a.iters_option->count() > 0;
  const bool warmup_given = a.warmup_option && a.warmup_option->count() > 0;
  if (iters_given && a.iters < 1) return Status::Invalid("--iters must be at least 1");
  if (warmup_given && a.warmup < 0) return Status::Invalid("--warmup must not be negative");
  if (!std::isfinite(a.link_gbps) || a.link_gbps < 0)
    return Status::Invalid("--link-gbps must be finite and not negative");
  if (!std::isfinite(a.link_latency_us) || a.link_latency_us < 0) {
    return Status::Invalid("--link-latency-us must be finite and not negative");
  }
  if (a.link_latency_us > 0 && a.link_gbps == 0) return Status::Invalid("--link-latency-us needs --link-gbps");
  if ((a.link_gbps > 0) && a.backend != "cpu") return Status::Invalid("--link-gbps applies to the cpu backend only");
  if (a.session != 0 && !a.resume) return Status::Invalid("--session names the session --resume continues");
  if (a.out.empty()) return Status::Invalid("--out needs a file name");
  // The winners are merged into what the file holds: standard output has nothing to merge with.
  if (a.out == "-") return Status::Invalid("--out -: tune merges its winners into a preset file; name one");
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
  std::error_code ec;
  if (a.resume && !std::filesystem::exists(a.db, ec)) {
    return ReportError("tune", Status::Invalid("--resume: there is no store " + a.db + " to resume from"));
  }
  if (Status s = CheckStoreWritable(a.db); !s.ok()) return ReportError("tune", s);
  auto backend = MakeBackend(a.backend, *hw, CpuBackendOptions{a.link_gbps, a.link_latency_us}, a.cuda);
  if (!backend.ok()) return ReportError("tune", backend.status());

  const bool deterministic = a.backend == "sim";
  TuneRequest q;
  q.targets = std::move(*targets);
  q.workload_key = workload_key;
  q.topology = topo->name;
  q.gpu = topo->gpu;
  q.gpu_sms = gpu->sm_count;
  q.backend = a.backend;
  q.knobs = *knobs;
  q.search.strategy = *strategy;
  q.search.iters = a.iters_option->count() > 0 ? a.iters : (deterministic ? 1 : 20);
  q.search.warmup = a.warmup_option->count() > 0 ? a.warmup : (deterministic ? 0 : 2);
  q.search.budget = a.budget;
  q.search.seed = a.seed;
  if (deterministic) q.search.recheck_max = 1;  // a deterministic backend repeats itself: nothing to recheck
  q.time_budget_s = a.time_budget_s;
  q.make_guide = [&](const Workload& w) -> Result<Guide> { return MakeSimGuide(w, *hw); };
  q.base.seed = a.seed;
  q.options_json = nlohmann::json{{"iters", q.search.iters},
                                  {"warmup", q.search.warmup},
                                  {"budget", q.search.budget},
                                  {"time_budget_s", a.time_budget_s},
                                  {"seed", a.seed},
                                  {"link_gbps", a.link_gbps},
                                  {"link_latency_us", a.link_latency_us}}
                       .dump();
  q.resume = a.resume;
  q.session = a.session;

  if (Status s = CheckTuneRequest(q); !s.ok()) return ReportError("tune", s);
  auto store = OpenStoreForWrite(a.db);
  if (!store.ok()) return ReportError("tune", store.status());
  TuneProgress progress(stderr, isatty(STDERR_FILENO) == 1, !a.no_progress);
  TuneObserver observer;
  observer.on_resume = [&](long long session, size_t recorded) {
    if (!a.no_progress) std::fprintf(stderr, "resuming tuning session %lld: %zu trials recorded\n", session, recorded);
  };
  observer.on_target = [&](const TuneTarget& t, size_t i, size_t n) {
    progress.StartTarget(t.name + " (" + std::to_string(i + 1) + "/" + std::to_string(n) + ")");
  };
  observer.on_trial = [&](const SearchProgress& p, const OverlapConfig& best) { progress.Update(p, best.Describe()); };
  observer.on_result = [&](const TuneResult& r) {
    progress.FinishTarget(r.config.Describe() + " " + FormatDuration(r.time_ns));
  };
  auto summary = RunTuning(q, **backend, **store, observer);
  if (!summary.ok()) return ReportError("tune", summary.status());

  PresetFile merged = *existing;
  const PresetFile update = PresetsOf(*summary, std::string(BraidVersion()), NowIso8601());
  if (Status s = MergeInto(merged, update); !s.ok()) return ReportError("tune", s);
  if (Status s = SavePresetsAtomically(a.out, merged); !s.ok()) return ReportError("tune", s);
  const PresetsWritten written{a.out, int(update.presets.size())};

  if (a.json) {
    std::cout << TuneJson(*summary, written).dump(2) << "\n";
  } else {
    std::cout << TuneTable(*summary, written);
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace braid::cli
