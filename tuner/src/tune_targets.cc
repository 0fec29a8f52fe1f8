// What a tuning session tunes, and how each candidate of a target is planned
// (braid/tune.h): one GEMM, or the ops of a training step planned together.
#include <optional>
#include <utility>

#include "braid/name_table.h"
#include "braid/planner.h"
#include "braid/te_ub_cfgs.h"
#include "braid/tune.h"

namespace braid {

namespace {

// The train layer of `lw` with only the ops at `indices` (in order).
LayerWorkload OpsOf(const LayerWorkload& lw, std::initializer_list<size_t> indices) {
  LayerWorkload sub = lw;
  sub.ops.clear();
  for (size_t i : indices) sub.ops.push_back(lw.ops[i]);
  return sub;
}

Result<std::vector<TuneTarget>> TargetsOfTrainLayer(const LayerWorkload& lw) {
  std::vector<TuneTarget> targets;
  for (const LayerOp& op : lw.ops) {
    if (op.kind == LayerOpKind::kTpGemm && op.pass == Pass::kFprop) {
      targets.push_back({op.name, op.gemm, lw.model.name + "/" + op.linear, Pass::kFprop, std::nullopt});
    }
  }
  // Each dgrad is followed by its wgrad (layer_workload.h): one target each.
  for (size_t i = 0; i + 1 < lw.ops.size(); ++i) {
    const LayerOp& dgrad = lw.ops[i];
    if (dgrad.pass != Pass::kDgrad || dgrad.kind == LayerOpKind::kAttention) continue;
    if (lw.ops[i + 1].pass != Pass::kWgrad || lw.ops[i + 1].linear != dgrad.linear) {
      return Status::Internal("train layer: " + dgrad.name + " is not followed by its wgrad");
    }
    targets.push_back({dgrad.linear + ".backward", dgrad.gemm, lw.model.name + "/" + dgrad.linear, Pass::kDgrad,
                       OpsOf(lw, {i, i + 1})});
  }
  return targets;
}

// A column-parallel pair's bulk candidates: the knobs of its two
// collectives (comm SMs, priority). Both collectives run on SMs: the
// reduce-scatter reduces, and TE's bulk overlap holds SMs for both.
// A dgrad+wgrad pair of a column-parallel linear (qkv, fc1): TE's bulk pair.
bool IsColumnPair(const TuneTarget& t) {
  return t.train_ops && !t.train_ops->ops.empty() && t.train_ops->ops.front().column;
}

// TE's bulk pair has two budgets (the all-gather beside the dgrad GEMM, the
// reduce-scatter beside the wgrad GEMM), searched independently, small ones
// included (Megatron-Bridge's presets use 2 and 4), with the GEMMs on all
// SMs or on what the budgets leave (TE's default: set_sm_margin).
void AddBulk(std::vector<OverlapConfig>& out, const BackendKnobs& knobs, int gpu_sms) {
  static constexpr int kBudgets[] = {16, 0, 1, 2, 4, 8, 24, 32};  // TE's default first: ties keep it
  OverlapConfig c;
  c.algorithm = Algorithm::kBulk;
  for (bool margin : {true, false}) {
    if (!margin && !knobs.comm_sms) break;
    for (int gather : kBudgets) {
      for (int scatter : kBudgets) {
        if (!knobs.comm_sms && (gather != 16 || scatter != 16)) continue;
        if (gpu_sms > 0 && (gather >= gpu_sms || scatter >= gpu_sms)) continue;
        if (margin && gather == 0) continue;        // a margin keeps a count of SMs
        if (scatter == 0 && gather != 0) continue;  // 0: the backend default, only beside a default all-gather
        c.sm_margin = margin;
        c.comm_sms = gather;
        c.wgrad_comm_sms = scatter == gather ? 0 : scatter;
        for (bool high : {true, false}) {
          if (!high && !knobs.priorities) continue;
          c.comm_high_priority = high;
          out.push_back(c);
        }
      }
    }
  }
}

}  // namespace

Result<std::vector<TuneTarget>> TargetsOfLayer(const LayerWorkload& lw) {
  if (lw.phase == Phase::kTrain) return TargetsOfTrainLayer(lw);
  std::vector<TuneTarget> targets;
  for (const LayerOp& op : lw.ops) {
    if (op.kind == LayerOpKind::kTpGemm) {
      targets.push_back({op.name, op.gemm, lw.model.name + "/" + op.name, Pass::kFprop, std::nullopt});
    }
  }
  if (targets.empty()) {
    return Status::Invalid("model " + lw.model.name + " has no TP GEMMs to tune (" + lw.Describe() + ")");
  }
  return targets;
}

Result<Plan> PlanOfTarget(const TuneTarget& t, const OverlapConfig& config) {
  if (t.train_ops) return BuildLayerPlan(*t.train_ops, config);
  return BuildPlan(t.w, config);
}

Result<Plan> SerialPlanOfTarget(const TuneTarget& t) {
  if (!t.train_ops) return BuildPlan(t.w, OverlapConfig{});
  return BuildSerialLayerPlan(*t.train_ops);
}

namespace {
constexpr NameTable<TuneRuntime, 2> kTuneRuntimeNames{{{TuneRuntime::kBraid, "braid"}, {TuneRuntime::kTe, "te"}}};
static_assert(IsOneToOne(kTuneRuntimeNames));
}  // namespace

std::string_view TuneRuntimeName(TuneRuntime r) { return NameIn(kTuneRuntimeNames, r); }

Result<TuneRuntime> ParseTuneRuntime(std::string_view name) {
  if (const std::optional<TuneRuntime> r = ValueNamed(kTuneRuntimeNames, name)) return *r;
  return Status::Invalid("unknown runtime '" + OneLine(name) +
                         "' (braid: every plan Braid runs; te: what TransformerEngine's ub_cfgs expresses)");
}

std::vector<OverlapConfig> SearchSpaceOfTarget(const TuneTarget& t, const BackendKnobs& knobs, int gpu_sms,
                                               TuneRuntime runtime) {
  if (runtime == TuneRuntime::kTe) return TeSearchSpaceOfTarget(t, knobs, gpu_sms);
  if (!t.train_ops && !t.comm_dtype.has_value()) return BuildSearchSpace(t.w, knobs, gpu_sms);
  std::vector<OverlapConfig> all = BuildSearchSpace(t.w, knobs, gpu_sms);
  if (IsColumnPair(t)) AddBulk(all, knobs, gpu_sms);
  // The planner has the last word (an external wgrad needs M % P == 0; FP8
  // partial sums need a ring).
  std::vector<OverlapConfig> out;
  for (OverlapConfig& c : all) {
    c.comm_dtype = t.comm_dtype;
    if (PlanOfTarget(t, c).ok()) out.push_back(std::move(c));
  }
  return out;
}

TeDefault TeDefaultOfTarget(const TuneTarget& t) {
  if (!IsColumnPair(t)) return TeDefaultConfig(t.w);
  // TE's defaults for qkv_dgrad / fc1_dgrad and their wgrads: bulk, 16 SMs
  // each, the GEMMs on the SMs left (set_sm_margin).
  const TeKey& key = *FindTeKey("qkv_dgrad");
  return {TeConfigOf(TeDefaultOptions(key, TeMethod::kBulk, t.w.tp), t.w), ""};
}

}  // namespace braid
