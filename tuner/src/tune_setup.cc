#include "braid/tune_setup.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <utility>

#include <nlohmann/json.hpp>

#include "braid/backend_kind.h"
#include "braid/budgets.h"
#include "braid/safe_write.h"
#include "braid/search_space.h"
#include "braid/sim_guide.h"
#include "braid/store.h"
#include "braid/te_ub_cfgs.h"

namespace braid {

namespace {

// The ops to tune and the session's workload key; a training step's whole
// block, measured at the end.
Result<std::vector<TuneTarget>> TargetsOf(const TuneSetup& s, std::string* key, std::optional<LayerWorkload>* block) {
  if (s.op.has_value() == s.layer.has_value()) {
    return Status::Invalid("a tune takes one op or one block (`op` or `layer`, not both or neither)");
  }
  if (s.op) {
    *key = s.op->Describe();
    return std::vector<TuneTarget>{{std::string(OpName(s.op->op)), *s.op, ""}};
  }
  const LayerWorkload& lw = *s.layer;
  if (lw.ulysses) {
    // Presets are keyed by the GEMM's shape, which a Ulysses projection
    // shares with a tensor-parallel one of other semantics.
    return Status::Invalid(
        "`sequence_parallel` ulysses: tune does not search Ulysses blocks (its presets would "
        "share their keys with tensor-parallel GEMMs); compare a2a and a2a_direct with "
        "`braid run --algo`");
  }
  *key = lw.Describe();
  if (lw.phase == Phase::kTrain) *block = lw;
  return TargetsOfLayer(lw);
}

int TpOf(const TuneSetup& s) { return s.op ? s.op->tp : s.layer ? s.layer->tp : 0; }

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
    return Status::Invalid("`out` " + path + ": directory " + dir.string() + " does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("`out` " + path + ": directory " + dir.string() + " is not writable");
  }
  BRAID_RETURN_IF_ERROR(CheckUpdatableTarget(path));
  return PresetFile{};
}

// The user's ub_cfgs as each target's baseline (a pair: its dgrad's config,
// the wgrad's budget as wgrad_comm_sms) and, for a training step, the block
// with every GEMM as the file says.
Result<LayerWorkload> BaselineOf(const TuneSetup& s, int gpu_sms, std::vector<TuneTarget>& targets) {
  if (!s.layer) return Status::Invalid("`baseline` is a block's ub_cfgs: it needs `model`");
  BRAID_ASSIGN_OR_RETURN(auto configured, LoadTeUbCfgsBlock(s.baseline, *s.layer, gpu_sms));
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

// The training step whose DP side is tuned once the block is; checked
// before anything is written.
Result<std::optional<TrainStepRequest>> TrainStepOf(const TuneSetup& s, const std::optional<LayerWorkload>& block) {
  if (!s.dp) return std::optional<TrainStepRequest>();
  if (!block) return Status::Invalid("`dp` tunes a training step: it needs `model` and `phase` train");
  if (BackendKindNamed(s.backend) != BackendKind::kSim) {
    return Status::Invalid("`dp` tunes the step on the sim backend (got " + s.backend + ")");
  }
  if (s.loopback) return Status::Invalid("`dp` and `loopback`: a loopback run has no DP group");
  TrainStepRequest step;
  step.block = *block;
  step.topology = s.topology;
  step.dp = *s.dp;
  step.layers = s.dp_layers;
  BRAID_RETURN_IF_ERROR(CheckTrainStep(step));
  return std::optional<TrainStepRequest>(std::move(step));
}

// Each target's comm dtype, refused where no algorithm of the GEMM can move it.
Result<std::optional<DType>> CommDTypeOf(const TuneSetup& s, std::vector<TuneTarget>& targets) {
  BRAID_ASSIGN_OR_RETURN(auto comm_dtype, ParseCommDType(s.comm_dtype));
  for (TuneTarget& t : targets) {
    OverlapConfig ring;  // the algorithm every comm dtype the GEMM has can take
    ring.algorithm = Algorithm::kRing;
    ring.comm_dtype = comm_dtype;
    if (Status st = CheckCommDType(t.w, ring, ring.algorithm); !st.ok()) {
      return Status::Invalid(t.name + ": " + st.message());
    }
    t.comm_dtype = comm_dtype;
  }
  return comm_dtype;
}

// The options a resumed session must match, in the codec's text
// (braid/session_options.h: the keys and order sessions have always had).
// Braid's own runtime is not written, so sessions from before the option
// resume.
std::string OptionsJson(const TuneSetup& s, const SearchOptions& search, const std::optional<DType>& comm_dtype,
                        TuneRuntime runtime) {
  const std::string runtime_name = runtime != TuneRuntime::kBraid ? std::string(TuneRuntimeName(runtime)) : "";
  return EncodeSessionOptions({search.iters, search.warmup, search.budget, s.time_budget_s, s.seed, s.link_gbps,
                               s.link_latency_us, comm_dtype, runtime_name, s.baseline});
}

}  // namespace

Status CheckTuneSetup(const TuneSetup& s) {
  if (s.budget && *s.budget < 1) {
    return Status::Invalid("`budget` must be at least 1 trial (got " + std::to_string(*s.budget) + ")");
  }
  if (!std::isfinite(s.time_budget_s) || s.time_budget_s < 0) {
    return Status::Invalid("`time_budget_s` must be a finite number of seconds, not negative");
  }
  if (s.iters && *s.iters < 1) return Status::Invalid("`iters` must be at least 1");
  if (s.warmup && *s.warmup < 0) return Status::Invalid("`warmup` must not be negative");
  if ((s.iters && *s.iters > kMaxTrialIterations) || (s.warmup && *s.warmup > kMaxTrialIterations)) {
    return Status::Invalid("`iters` and `warmup` of a trial must be at most " + std::to_string(kMaxTrialIterations) +
                           " (a tuner compares medians, which settle far sooner; run takes more)");
  }
  if (!std::isfinite(s.link_gbps) || s.link_gbps < 0) {
    return Status::Invalid("`link_gbps` must be finite and not negative");
  }
  if (!std::isfinite(s.link_latency_us) || s.link_latency_us < 0) {
    return Status::Invalid("`link_latency_us` must be finite and not negative");
  }
  if (s.link_latency_us > 0 && s.link_gbps == 0) return Status::Invalid("`link_latency_us` needs `link_gbps`");
  if ((s.link_gbps > 0) && BackendKindNamed(s.backend) != BackendKind::kCpu) {
    return Status::Invalid("`link_gbps` applies to the cpu backend only");
  }
  if (s.timeout_s && (!(*s.timeout_s > 0) || !std::isfinite(*s.timeout_s))) {
    return Status::Invalid("`timeout_s` must be a positive number of seconds");
  }
  if (s.session != 0 && !s.resume) return Status::Invalid("`session` names the session `resume` continues");
  if (s.out.empty()) return Status::Invalid("`out` needs a file name");
  // The winners are merged into what the file holds: standard output has nothing to merge with.
  if (s.out == "-") return Status::Invalid("`out` -: tune merges its winners into a preset file; name one");
  if (s.db.empty()) return Status::Invalid("`db` needs a file name");
  return Status::Ok();
}

Result<PreparedTune> PrepareTune(const TuneSetup& s) {
  BRAID_RETURN_IF_ERROR(CheckTuneSetup(s));
  const bool on_sim = BackendKindNamed(s.backend) == BackendKind::kSim;
  const std::string strategy_name = s.strategy.empty() ? (on_sim ? "exhaustive" : "guided") : s.strategy;
  BRAID_ASSIGN_OR_RETURN(auto strategy, ParseStrategy(strategy_name));
  std::string workload_key;
  std::optional<LayerWorkload> block;
  BRAID_ASSIGN_OR_RETURN(auto targets, TargetsOf(s, &workload_key, &block));
  BRAID_ASSIGN_OR_RETURN(auto step, TrainStepOf(s, block));
  BRAID_ASSIGN_OR_RETURN(auto comm_dtype, CommDTypeOf(s, targets));
  BRAID_ASSIGN_OR_RETURN(auto runtime, ParseTuneRuntime(s.runtime));
  if (runtime == TuneRuntime::kTe && comm_dtype.has_value()) {
    return Status::Invalid("`comm_dtype` with `runtime` te: TE moves the GEMM's own dtypes (fp8_buf as TE sets it)");
  }
  auto hw = LoadSimHardware(s.topology);  // the GPU file gives the SM count the space respects
  if (!hw.ok()) return hw.status();
  PreparedTune p;
  p.step = std::move(step);
  p.hw = std::make_shared<SimHardware>(std::move(*hw));
  const Topology& topo = p.hw->topo;
  BRAID_RETURN_IF_ERROR(topo.CheckFits(TpOf(s)));
  std::optional<LayerWorkload> baseline_block;
  if (!s.baseline.empty()) {
    BRAID_ASSIGN_OR_RETURN(auto b, BaselineOf(s, p.hw->gpu.sm_count, targets));
    baseline_block = std::move(b);
  }
  BRAID_ASSIGN_OR_RETURN(auto knobs, KnobsOfBackend(s.backend));
  BRAID_ASSIGN_OR_RETURN(auto existing, ExistingPresets(s.out));
  p.existing = std::move(existing);
  std::error_code ec;
  if (s.resume && !std::filesystem::exists(s.db, ec)) {
    return Status::Invalid("`resume`: there is no store " + s.db + " to resume from");
  }
  BRAID_RETURN_IF_ERROR(CheckStoreWritable(s.db));

  const bool deterministic = on_sim;
  TuneRequest& q = p.request;
  q.targets = std::move(targets);
  q.block = std::move(block);
  if (q.block) q.baseline_block = std::move(baseline_block);
  q.runtime = runtime;
  q.workload_key = workload_key;
  // A loopback tune's winners are for P ranks sharing one GPU: keyed apart,
  // so that they never replace (or get looked up as) the topology's own.
  q.topology = s.loopback ? topo.name + "-loopback" : topo.name;
  q.gpu = topo.gpu;
  q.gpu_sms = p.hw->gpu.sm_count;
  q.backend = s.backend;
  // In loopback every rank's fused kernel gets a P-th of the GPU.
  q.knobs = s.loopback ? KnobsOnSharedGpu(knobs, q.gpu_sms, TpOf(s)) : knobs;
  q.search.strategy = strategy;
  q.search.iters = s.iters.value_or(deterministic ? 1 : 20);
  q.search.warmup = s.warmup.value_or(deterministic ? 0 : 2);
  q.search.budget = s.budget.value_or(0);
  q.search.seed = s.seed;
  if (deterministic) q.search.recheck_max = 1;  // a deterministic backend repeats itself: nothing to recheck
  q.time_budget_s = s.time_budget_s;
  q.make_guide = [hw = p.hw](const TuneTarget& t) -> Result<Guide> {
    return MakeSimGuide([t](const OverlapConfig& c) { return PlanOfTarget(t, c); }, *hw);
  };
  q.base.seed = s.seed;
  q.options_json = OptionsJson(s, q.search, comm_dtype, runtime);
  q.resume = s.resume;
  q.session = s.session;
  BRAID_RETURN_IF_ERROR(CheckTuneRequest(q));
  return p;
}

}  // namespace braid
