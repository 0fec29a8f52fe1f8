#include "tune_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "backend_choice.h"
#include "braid/backend_kind.h"
#include "braid/cpu_process_backend.h"
#include "braid/launcher.h"
#include "braid/layer_workload.h"
#include "braid/metric_rows.h"
#include "braid/presets.h"
#include "braid/safe_write.h"
#include "braid/search_space.h"
#include "braid/session_options.h"
#include "braid/sim_backend.h"
#include "braid/sim_guide.h"
#include "braid/status_context.h"
#include "braid/te_ub_cfgs.h"
#include "braid/topology_files.h"
#include "braid/tune.h"
#include "braid/tune_over_processes.h"
#include "braid/version.h"
#include "cli_exit.h"
#include "mpi_job.h"
#include "run_command.h"
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

// The ops to tune and the session's workload key; a training step's whole
// block, measured at the end.
Result<std::vector<TuneTarget>> TargetsOf(const TuneArgs& a, std::string* key, std::optional<LayerWorkload>* block) {
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
    BRAID_ASSIGN_OR_RETURN(auto w, WorkloadFromFlags(r.op, r.m, r.n, r.k, r.tp, r.dtype));
    *key = w.Describe();
    return std::vector<TuneTarget>{{std::string(OpName(w.op)), w, ""}};
  }
  BRAID_ASSIGN_OR_RETURN(auto lw, LayerFromArgs(r));
  if (lw.ulysses) {
    // Presets are keyed by the GEMM's shape, which a Ulysses projection
    // shares with a tensor-parallel one of other semantics.
    return Status::Invalid(
        "--sequence-parallel ulysses: tune does not search Ulysses blocks (its presets would "
        "share their keys with tensor-parallel GEMMs); compare a2a and a2a_direct with "
        "`braid run --algo`");
  }
  *key = lw.Describe();
  if (lw.phase == Phase::kTrain) *block = lw;
  return TargetsOfLayer(lw);
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
  if ((iters_given && a.iters > kMaxTrialIterations) || (warmup_given && a.warmup > kMaxTrialIterations)) {
    return Status::Invalid("--iters and --warmup of a trial must be at most " + std::to_string(kMaxTrialIterations) +
                           " (a tuner compares medians, which settle far sooner; run takes more)");
  }
  if (!std::isfinite(a.link_gbps) || a.link_gbps < 0)
    return Status::Invalid("--link-gbps must be finite and not negative");
  if (!std::isfinite(a.link_latency_us) || a.link_latency_us < 0) {
    return Status::Invalid("--link-latency-us must be finite and not negative");
  }
  if (a.link_latency_us > 0 && a.link_gbps == 0) return Status::Invalid("--link-latency-us needs --link-gbps");
  if ((a.link_gbps > 0) && BackendKindNamed(a.backend) != BackendKind::kCpu) {
    return Status::Invalid("--link-gbps applies to the cpu backend only");
  }
  // --timeout: the same check in process (cpu, cuda) as under mpirun.
  if (a.timeout_option && a.timeout_option->count() > 0) BRAID_RETURN_IF_ERROR(CheckMpiTimeout(a.cuda));
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
    BRAID_ASSIGN_OR_RETURN(auto f, LoadPresetFile(path));
    BRAID_RETURN_IF_ERROR(CheckUpdatableTarget(path));  // its lock too: refused now, not after measuring
    return f;
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Invalid("--out " + path + ": directory " + dir.string() + " does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("--out " + path + ": directory " + dir.string() + " is not writable");
  }
  BRAID_RETURN_IF_ERROR(CheckUpdatableTarget(path));
  return PresetFile{};
}

// The user's ub_cfgs as each target's baseline (a pair: its dgrad's config,
// the wgrad's budget as wgrad_comm_sms) and, for a training step, the block
// with every GEMM as the file says.
Result<LayerWorkload> BaselineOf(const TuneArgs& a, int gpu_sms, std::vector<TuneTarget>& targets) {
  if (a.workload.model.empty()) return Status::Invalid("--baseline is a block's ub_cfgs: it needs --model");
  BRAID_ASSIGN_OR_RETURN(auto lw, LayerFromArgs(a.workload));
  BRAID_ASSIGN_OR_RETURN(auto configured, LoadTeUbCfgsBlock(a.baseline, lw, gpu_sms));
  const LayerWorkload& block = configured.layer;
  auto config_of = [&](const std::string& name) -> std::optional<OverlapConfig> {
    for (const LayerOp& op : block.ops) {
      if (op.name == name) return op.config;
    }
    return std::nullopt;
  };
  for (TuneTarget& t : targets) {
    if (!t.train_ops) {
      t.baseline = config_of(t.name);
      continue;
    }
    const std::vector<LayerOp>& pair = t.train_ops->ops;
    std::optional<OverlapConfig> dgrad = config_of(pair.at(0).name);
    const std::optional<OverlapConfig> wgrad = config_of(pair.at(1).name);
    if (dgrad && wgrad && dgrad->algorithm == Algorithm::kBulk && wgrad->algorithm == Algorithm::kBulk &&
        wgrad->comm_sms != dgrad->comm_sms) {
      dgrad->wgrad_comm_sms = wgrad->comm_sms;
    }
    t.baseline = dgrad;
  }
  return block;
}

// Everything tune checks and builds before it measures. Only the process
// that writes (rank 0 under mpirun) prepares.
struct PreparedTune {
  std::shared_ptr<SimHardware> hw;  // the guide reads it
  TuneRequest request;
  PresetFile existing;
  std::optional<TrainStepRequest> step;  // --dp: the step's DP side tuned after the block
};

// --dp: the training step whose DP side is tuned once the block is; checked
// before anything is written.
Result<std::optional<TrainStepRequest>> TrainStepOf(const TuneArgs& a, const std::optional<LayerWorkload>& block) {
  if (!DpRequested(a.dp)) return std::optional<TrainStepRequest>();
  if (!block) return Status::Invalid("--dp tunes a training step: it needs --model and --phase train");
  if (BackendKindNamed(a.backend) != BackendKind::kSim) {
    return Status::Invalid("--dp tunes the step on the sim backend (got " + a.backend + ")");
  }
  if (a.cuda.loopback) return Status::Invalid("--dp and --loopback: a loopback run has no DP group");
  TrainStepRequest step;
  step.block = *block;
  step.topology = a.topology;
  BRAID_ASSIGN_OR_RETURN(step.dp, DpSetupFromArgs(a.dp));
  step.layers = a.dp.layers;
  BRAID_RETURN_IF_ERROR(CheckTrainStep(step));
  return std::optional<TrainStepRequest>(std::move(step));
}

Result<PreparedTune> PrepareTune(const TuneArgs& a) {
  BRAID_RETURN_IF_ERROR(CheckOptions(a));
  const bool on_sim = BackendKindNamed(a.backend) == BackendKind::kSim;
  const std::string strategy_name = a.strategy.empty() ? (on_sim ? "exhaustive" : "guided") : a.strategy;
  BRAID_ASSIGN_OR_RETURN(auto strategy, ParseStrategy(strategy_name));
  std::string workload_key;
  std::optional<LayerWorkload> block;
  BRAID_ASSIGN_OR_RETURN(auto targets, TargetsOf(a, &workload_key, &block));
  BRAID_ASSIGN_OR_RETURN(auto step, TrainStepOf(a, block));
  BRAID_ASSIGN_OR_RETURN(auto comm_dtype, ParseCommDType(a.comm_dtype));
  for (TuneTarget& t : targets) {
    OverlapConfig ring;  // the algorithm every comm dtype the GEMM has can take
    ring.algorithm = Algorithm::kRing;
    ring.comm_dtype = comm_dtype;
    if (Status s = CheckCommDType(t.w, ring, ring.algorithm); !s.ok()) {
      return Status::Invalid(t.name + ": " + s.message());
    }
    t.comm_dtype = comm_dtype;
  }
  BRAID_ASSIGN_OR_RETURN(auto runtime, ParseTuneRuntime(a.runtime));
  if (runtime == TuneRuntime::kTe && comm_dtype.has_value()) {
    return Status::Invalid("--comm-dtype with --runtime te: TE moves the GEMM's own dtypes (fp8_buf as TE sets it)");
  }
  auto hw = LoadSimHardware(a.topology);  // the GPU file gives the SM count the space respects
  if (!hw.ok()) return hw.status();
  PreparedTune p;
  p.step = std::move(step);
  p.hw = std::make_shared<SimHardware>(std::move(*hw));
  const Topology& topo = p.hw->topo;
  BRAID_RETURN_IF_ERROR(topo.CheckFits(a.workload.tp));
  std::optional<LayerWorkload> baseline_block;
  if (!a.baseline.empty()) {
    BRAID_ASSIGN_OR_RETURN(auto b, BaselineOf(a, p.hw->gpu.sm_count, targets));
    baseline_block = std::move(b);
  }
  BRAID_ASSIGN_OR_RETURN(auto knobs, KnobsOfBackend(a.backend));
  BRAID_ASSIGN_OR_RETURN(auto existing, ExistingPresets(a.out));
  p.existing = std::move(existing);
  std::error_code ec;
  if (a.resume && !std::filesystem::exists(a.db, ec)) {
    return Status::Invalid("--resume: there is no store " + a.db + " to resume from");
  }
  BRAID_RETURN_IF_ERROR(CheckStoreWritable(a.db));

  const bool deterministic = on_sim;
  TuneRequest& q = p.request;
  q.targets = std::move(targets);
  q.block = std::move(block);
  if (q.block) q.baseline_block = std::move(baseline_block);
  q.runtime = runtime;
  q.workload_key = workload_key;
  // A loopback tune's winners are for P ranks sharing one GPU: keyed apart,
  // so that they never replace (or get looked up as) the topology's own.
  q.topology = a.cuda.loopback ? topo.name + "-loopback" : topo.name;
  q.gpu = topo.gpu;
  q.gpu_sms = p.hw->gpu.sm_count;
  q.backend = a.backend;
  // In loopback every rank's fused kernel gets a P-th of the GPU.
  q.knobs = a.cuda.loopback ? KnobsOnSharedGpu(knobs, q.gpu_sms, a.workload.tp) : knobs;
  q.search.strategy = strategy;
  q.search.iters = a.iters_option->count() > 0 ? a.iters : (deterministic ? 1 : 20);
  q.search.warmup = a.warmup_option->count() > 0 ? a.warmup : (deterministic ? 0 : 2);
  q.search.budget = a.budget;
  q.search.seed = a.seed;
  if (deterministic) q.search.recheck_max = 1;  // a deterministic backend repeats itself: nothing to recheck
  q.time_budget_s = a.time_budget_s;
  q.make_guide = [hw = p.hw](const TuneTarget& t) -> Result<Guide> {
    return MakeSimGuide([t](const OverlapConfig& c) { return PlanOfTarget(t, c); }, *hw);
  };
  q.base.seed = a.seed;
  // Braid's own runtime is not written, so sessions from before the flag resume.
  const std::string runtime_name = runtime != TuneRuntime::kBraid ? std::string(TuneRuntimeName(runtime)) : "";
  const SessionOptions options{q.search.iters, q.search.warmup,   q.search.budget, a.time_budget_s, a.seed,
                               a.link_gbps,    a.link_latency_us, comm_dtype,      runtime_name,    a.baseline};
  q.options_json = EncodeSessionOptions(options);
  q.resume = a.resume;
  q.session = a.session;
  BRAID_RETURN_IF_ERROR(CheckTuneRequest(q));
  return p;
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
  auto prepared = PrepareTune(a);
  if (!prepared.ok()) return ReportError("tune", prepared.status());
  if (Status s = CheckTimeoutApplies(a.backend, a.timeout_option); !s.ok()) return ReportError("tune", s);
  auto backend = MakeBackend(a.backend, *prepared->hw,
                             CpuOptionsOf(a.link_gbps, a.link_latency_us, a.cuda, a.timeout_option), a.cuda);
  if (!backend.ok()) return ReportError("tune", backend.status());
  if (Status s = TuneAndReport(a, *prepared, **backend); !s.ok()) return ReportError("tune", s);
  return kExitOk;
}

// Every flag that changes what a tune does, so that ranks started with
// different arguments are told apart by a hash instead of hanging.
uint64_t ArgumentsHash(const TuneArgs& a) {
  const WorkloadArgs& w = a.workload;
  std::string key;
  for (const std::string& field : {a.backend,
                                   w.op,
                                   w.m,
                                   w.n,
                                   w.k,
                                   w.model,
                                   w.seq,
                                   w.batch,
                                   w.phase,
                                   w.sequence_parallel,
                                   std::to_string(w.tp),
                                   w.dtype,
                                   a.topology,
                                   a.strategy,
                                   std::to_string(a.budget),
                                   std::to_string(a.time_budget_s),
                                   std::to_string(a.iters_option->count() > 0 ? a.iters : -1),
                                   std::to_string(a.warmup_option->count() > 0 ? a.warmup : -1),
                                   a.db,
                                   std::to_string(a.resume),
                                   std::to_string(a.session),
                                   a.out,
                                   std::to_string(a.link_gbps),
                                   std::to_string(a.link_latency_us),
                                   std::to_string(a.cuda.timeout_s),
                                   std::to_string(a.seed),
                                   a.comm_dtype,
                                   a.runtime,
                                   a.baseline,
                                   std::to_string(a.cuda.tf32),
                                   std::to_string(a.cuda.loopback),
                                   DpArgsKey(a.dp)}) {
    key += field + '\x1f';
  }
  return HashOfArguments(key);
}

// mpirun -np P braid tune: rank 0 prepares, runs the session on a
// LeaderBackend and writes; the others follow its runs (tune_over_processes.h).
int ExecuteTuneUnderMpi(const TuneArgs& a) {
  const double timeout = MpiTimeout(a.cuda, a.timeout_option);
  auto launcher = MakeLauncher(timeout);
  if (!launcher.ok()) return ReportError("tune", launcher.status());
  Launcher& world = **launcher;
  const bool root = world.is_root();
  // Bad input: found by rank 0 (or on every rank alike), printed once, exit 2 everywhere.
  auto fail = [root](const Status& s) {
    if (root) return ReportError("tune", s);
    return s.is_user_error() ? kExitUsage : kExitFailure;
  };
  Status checked = SameAsRank0(world, ArgumentsHash(a), kArgumentsDiffer);
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
    prepared = PrepareTune(a);
    checked = prepared.status();
  }
  checked = AgreeOnStatus(world, checked);
  if (!checked.ok()) return fail(checked);

#if defined(BRAID_HAVE_MPI)
  CpuProcessBackend backend(&world, CpuBackendOptions{a.link_gbps, a.link_latency_us},
                            MpiTransportFactory(timeout, NodeLinksOf(*topo)));
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
  if (!StartedByMpiLauncher()) return ExecuteTuneInProcess(a);
  return ExecuteTuneUnderMpi(a);
}

}  // namespace braid::cli
