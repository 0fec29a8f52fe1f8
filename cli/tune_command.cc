#include "tune_command.h"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "backend_choice.h"
#include "braid/backend_kind.h"
#include "braid/cpu_process_backend.h"
#include "braid/launcher.h"
#include "braid/presets.h"
#include "braid/safe_write.h"
#include "braid/sim_backend.h"
#include "braid/status_context.h"
#include "braid/topology_files.h"
#include "braid/tune.h"
#include "braid/tune_over_processes.h"
#include "braid/tune_setup.h"
#include "braid/version.h"
#include "cli_exit.h"
#include "front_end.h"
#include "mpi_job.h"
#include "run_report.h"
#include "store_access.h"
#include "train_step_report.h"
#include "tune_progress.h"
#include "tune_report.h"
#include "workload_flags.h"
#if defined(BRAID_HAVE_MPI)
#include "braid/mpi_transport.h"
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
  AddCommDTypeOption(sub, &a->comm_dtype);
  sub->add_option("--runtime", a->runtime,
                  "braid: every plan Braid runs; te: only what TransformerEngine's ub_cfgs can express, so that "
                  "presets export-te writes exactly what was tuned")
      ->capture_default_str();
  sub->add_option("--baseline", a->baseline,
                  "a ub_cfgs YAML (yours, or Megatron-Bridge's): each GEMM and the block measured at it beside TE's "
                  "default, and a candidate the winner may be (needs --model)");
  AddCudaOptions(sub, &a->cuda);
  AddDpGridOptions(sub, &a->dp);
  a->timeout_option = sub->get_option("--timeout");
  a->app = sub;
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

bool Given(const CLI::Option* option) { return option != nullptr && option->count() > 0; }

// The workload the flags name: one op, or a model's block (the rank count
// checked first, as a tune without it has nothing to overlap).
Status WorkloadOf(const WorkloadArgs& r, TuneSetup& s) {
  BRAID_RETURN_IF_ERROR(CheckWorkloadForm(r));
  if (r.tp < 2 && !r.model.empty()) {
    return Status::Invalid("model " + r.model + " has no TP GEMMs at --tp " + std::to_string(r.tp) +
                           ": without tensor parallelism there is no communication to overlap");
  }
  if (r.tp < 2) {
    return Status::Invalid("--tp " + std::to_string(r.tp) + ": tuning needs at least 2 ranks (nothing to overlap)");
  }
  if (r.model.empty()) {
    BRAID_ASSIGN_OR_RETURN(auto w, WorkloadFromFlags(r.op, r.m, r.n, r.k, r.tp, r.dtype));
    s.op = w;
    return Status::Ok();
  }
  BRAID_ASSIGN_OR_RETURN(auto lw, LayerFromArgs(r));
  s.layer = std::move(lw);
  return Status::Ok();
}

// The tuner's fields for what the flags ask (braid/tune_setup.h), checked
// in the order they always were: the fields alone, the strategy's name, the
// workload, the DP grid.
Result<TuneSetup> SetupOf(const TuneArgs& a) {
  TuneSetup s;
  s.backend = a.backend;
  s.topology = a.topology;
  s.strategy = a.strategy;
  if (Given(a.budget_option)) s.budget = a.budget;
  s.time_budget_s = a.time_budget_s;
  if (Given(a.iters_option)) s.iters = a.iters;
  if (Given(a.warmup_option)) s.warmup = a.warmup;
  s.db = a.db;
  s.resume = a.resume;
  s.session = a.session;
  s.out = a.out;
  s.link_gbps = a.link_gbps;
  s.link_latency_us = a.link_latency_us;
  // --timeout: the same check in process (cpu, cuda) as under mpirun.
  if (Given(a.timeout_option)) s.timeout_s = a.cuda.timeout_s;
  s.loopback = a.cuda.loopback;
  s.seed = a.seed;
  s.comm_dtype = a.comm_dtype;
  s.runtime = a.runtime;
  s.baseline = a.baseline;
  BRAID_RETURN_IF_ERROR(CheckTuneSetup(s));
  if (!a.strategy.empty()) BRAID_RETURN_IF_ERROR(ParseStrategy(a.strategy).status());
  BRAID_RETURN_IF_ERROR(WorkloadOf(a.workload, s));
  if (DpRequested(a.dp)) {
    // The flags are read only for a step the tuner takes; otherwise it
    // refuses the step (no training block, not the sim, loopback) before
    // their values matter.
    const bool step = s.layer && s.layer->phase == Phase::kTrain && !s.layer->ulysses &&
                      BackendKindNamed(a.backend) == BackendKind::kSim && !a.cuda.loopback;
    if (step) {
      BRAID_ASSIGN_OR_RETURN(s.dp, DpSetupFromArgs(a.dp));
    } else {
      s.dp = DpSetup{};
    }
    s.dp_layers = a.dp.layers;
  }
  return s;
}

Result<PreparedTune> PrepareFromArgs(const TuneArgs& a) {
  BRAID_ASSIGN_OR_RETURN(auto setup, SetupOf(a));
  return PrepareTune(setup);
}

// The DP side of the step, tuned on the tuned block's run, beside the
// serial block's with Megatron's DP defaults (braid/dp_tune.h).
Result<DpTuneReport> TuneDpSide(const TrainStepRequest& step, const TuneSummary& summary, const Store& store) {
  if (!summary.block || summary.block->tuned.run < 0 || summary.block->serial.run < 0) {
    return Status::Internal("the tuned block has no stored run to take the step's figures from");
  }
  BRAID_ASSIGN_OR_RETURN(RunRecord tuned, LoadRunRecord(store, summary.block->tuned.run));
  BRAID_ASSIGN_OR_RETURN(RunRecord serial, LoadRunRecord(store, summary.block->serial.run));
  DpTuneReport r;
  r.request = step;
  BRAID_ASSIGN_OR_RETURN(r.tuned, TuneDpStep(step, tuned));
  TrainStepRequest megatron = step;
  megatron.dp = r.tuned.megatron;
  BRAID_ASSIGN_OR_RETURN(r.serial_tp, SimulateTrainStep(megatron, &serial));
  return r;
}

// The DP winner as a preset (version 5): keyed by the block's shape, the
// grid and the ZeRO stage.
DpPreset DpPresetOf(const DpTuneReport& r, const Topology& topo, const std::string& version, const std::string& date) {
  DpPreset p;
  const LayerWorkload& block = r.request.block;
  const DpSetup& s = r.tuned.best;
  p.key = {topo.gpu, topo.name, block.model.name, block.tokens(), block.tp, s.dp, s.zero, block.dtype};
  p.schedule = s.schedule;
  p.bucket_params = s.bucket_params.value_or(MegatronDefaultBucketParams(s.dp));
  p.decomposed_layers = s.decomposed_layers;
  p.decomposition = s.decomposition.algorithm;
  p.decomposition_chunks = s.decomposition.chunks;
  p.prefetch = s.prefetch;
  p.comm_sms = s.comm_sms;
  p.step_ns = r.tuned.best_figures.step_ns;
  p.speedup_vs_megatron = p.step_ns > 0 ? r.tuned.megatron_figures.step_ns / p.step_ns : 0;
  p.backend = "sim";
  p.braid_version = version;
  p.date = date;
  return p;
}

// The session on `backend`, the presets merged into --out, and the report
// printed. A failure is returned for the caller to print.
Status TuneAndReport(const TuneArgs& a, const PreparedTune& p, Backend& backend) {
  BRAID_ASSIGN_OR_RETURN(auto store, OpenStoreForWrite(a.db));
  TuneProgress progress(stderr, isatty(STDERR_FILENO) == 1, !a.no_progress);
  TuneObserver observer;
  observer.on_resume = [&](long long session, size_t recorded, bool done) {
    if (a.no_progress) return;
    if (done) {
      std::fprintf(stderr, "tuning session %lld is done: its winners come from its %zu recorded trials\n", session,
                   recorded);
    } else {
      std::fprintf(stderr, "resuming tuning session %lld: %zu trials recorded\n", session, recorded);
    }
  };
  observer.on_target = [&](const TuneTarget& t, size_t i, size_t n) {
    progress.StartTarget(t.name + " (" + std::to_string(i + 1) + "/" + std::to_string(n) + ")");
  };
  observer.on_trial = [&](const SearchProgress& sp, const OverlapConfig& best) {
    progress.Update(sp, best.Describe());
  };
  observer.on_result = [&](const TuneResult& r) {
    progress.FinishTarget(r.config.Describe() + " " + FormatDuration(r.time_ns));
  };
  BRAID_ASSIGN_OR_RETURN(auto summary, RunTuning(p.request, backend, *store, observer));

  std::optional<DpTuneReport> dp;
  if (p.step) {
    BRAID_ASSIGN_OR_RETURN(auto report, TuneDpSide(*p.step, summary, *store));
    dp = std::move(report);
  }
  PresetFile merged = p.existing;
  const std::string date = NowIso8601();
  PresetFile update = PresetsOf(summary, std::string(BraidVersion()), date);
  if (dp) update.dp_presets.push_back(DpPresetOf(*dp, p.hw->topo, std::string(BraidVersion()), date));
  BRAID_RETURN_IF_ERROR(MergeInto(merged, update));
  if (Status s = SavePresetsAtomically(a.out, merged); !s.ok()) {
    // Every trial is stored: say how to have the winners without measuring again.
    return StatusOf(s.code(), s.message() + " (the session's " + std::to_string(summary.trials) +
                                  " trials are stored in " + a.db + ": the same command with --resume --session " +
                                  std::to_string(summary.session) + " writes its presets from them)");
  }
  const PresetsWritten written{a.out, int(update.presets.size() + update.dp_presets.size())};

  if (a.json) {
    nlohmann::json j = TuneJson(summary, written);
    if (dp) j["train_step"] = DpTuneJson(*dp);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << TuneTable(summary, written);
    if (dp) std::cout << DpTuneTable(*dp);
  }
  std::cout.flush();
  return Status::Ok();
}

int ExecuteTuneInProcess(const TuneArgs& a) {
  auto prepared = PrepareFromArgs(a);
  if (!prepared.ok()) return ReportError("tune", prepared.status());
  if (Status s = CheckTimeoutApplies(a); !s.ok()) return ReportError("tune", s);
  auto backend = MakeBackend(a, *prepared->hw);
  if (!backend.ok()) return ReportError("tune", backend.status());
  if (Status s = TuneAndReport(a, *prepared, **backend); !s.ok()) return ReportError("tune", s);
  return kExitOk;
}

// mpirun -np P braid tune: rank 0 prepares, runs the session on a
// LeaderBackend and writes; the others follow its runs (tune_over_processes.h).
int ExecuteTuneUnderMpi(const TuneArgs& a) {
  // What only rank 0 does with them (print) is left out of the hash.
  auto started = StartMpiJob(a, ArgumentsHash(*a.app, {"--json", "--no-progress"}));
  if (!started.ok()) return ReportError("tune", started.status());
  Launcher& world = *started->world;
  const bool root = world.is_root();
  // Bad input: found by rank 0 (or on every rank alike), printed once, exit 2 everywhere.
  auto fail = [root](const Status& s) {
    if (root) return ReportError("tune", s);
    return s.is_user_error() ? kExitUsage : kExitFailure;
  };
  Status checked = started->checked;
  if (checked.ok()) checked = CheckMpiTimeout(a.cuda);
  if (checked.ok()) checked = CheckJobShape(world, a.backend, a.workload.tp, /*cuda_allowed=*/false);
  // A training block's step is measured as one layer plan, which runs only
  // in one process: refused before any trial, not after twelve.
  if (checked.ok() && !a.workload.model.empty() && a.workload.phase == "train") {
    checked = Status::Invalid(
        "tune --phase train under mpirun: the block's training step is measured as one layer plan, which runs in "
        "one process only; tune it without mpirun (the cpu backend's ranks as threads, or the sim)");
  }
  Result<Topology> topo = Status::Internal("not loaded");
  if (checked.ok()) {
    topo = LoadTopology(a.topology);  // every rank: its node links pace the transfers
    checked = topo.status();
  }
  Result<PreparedTune> prepared = Status::Internal("not prepared");
  if (checked.ok() && root) {
    prepared = PrepareFromArgs(a);
    checked = prepared.status();
  }
  checked = AgreeOnStatus(world, checked);
  if (!checked.ok()) return fail(checked);

#if defined(BRAID_HAVE_MPI)
  CpuProcessBackend backend(&world, CpuBackendOptions{a.link_gbps, a.link_latency_us},
                            MpiTransportFactory(MpiTimeout(a), NodeLinksOf(*topo)));
  if (!root) {
    Result<int> code = FollowRuns(world, backend);
    if (code.ok()) return *code;
    if (code.status().is_user_error()) return kExitUsage;
    AbortJob(world, "braid tune: " + RankPrefixed(world, code.status()), kExitFailure);
  }
  LeaderBackend leader(world, backend);
  const Status tuned = TuneAndReport(a, *prepared, leader);
  if (!leader.broken().ok()) AbortJob(world, "braid tune: " + RankPrefixed(world, leader.broken()), kExitFailure);
  const int code = tuned.ok() ? kExitOk : ReportError("tune", tuned);
  if (Status s = leader.Finish(code); !s.ok()) {
    AbortJob(world, "braid tune: " + RankPrefixed(world, s), kExitFailure);
  }
  return code;
#else
  return fail(Status::Unavailable("this braid was built without MPI"));
#endif
}

}  // namespace

int ExecuteTune(const TuneArgs& a) {
  return DispatchCommand([&] { return ExecuteTuneInProcess(a); }, [&] { return ExecuteTuneUnderMpi(a); });
}

}  // namespace braid::cli
