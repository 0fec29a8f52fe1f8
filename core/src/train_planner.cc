// Train plans: a transformer block's forward and backward in one Plan, each
// GEMM with its own method (planner.h, "train").
#include <string>
#include <vector>

#include "braid/planner.h"
#include "layer_builder.h"

namespace braid::detail {

namespace {

bool IsRing(Algorithm a) { return a == Algorithm::kRing || a == Algorithm::kBidirRing; }

// The run's algorithm where this GEMM takes it, serial where it does not.
Algorithm Derived(const LayerOp& op, Algorithm run) {
  const bool backward_only = run == Algorithm::kBulk || run == Algorithm::kExternal;
  if (op.pass == Pass::kWgrad) return Algorithm::kSerial;  // decided by its dgrad (MethodsOf)
  if (op.column && op.pass == Pass::kDgrad) return run == Algorithm::kExternal ? Algorithm::kSerial : run;
  return backward_only ? Algorithm::kSerial : run;
}

}  // namespace

// Each op's config: its own method where set, else derived from `cfg`; a
// wgrad follows its dgrad (bulk with bulk, external after a ring), and the
// pairings TransformerEngine refuses are refused here.
Result<std::vector<OverlapConfig>> MethodsOf(const LayerWorkload& lw, const OverlapConfig& cfg) {
  if (cfg.algorithm == Algorithm::kExternal) {
    return Status::Invalid(
        "external is chosen by its dgrad: with `algorithm` ring or bidir_ring every row-parallel wgrad "
        "(out_proj, fc2) is external");
  }
  if (cfg.algorithm == Algorithm::kIso) {
    return Status::Invalid("iso splits a prefill's sequence: it does not apply to training layers");
  }
  std::vector<OverlapConfig> out(lw.ops.size(), cfg);
  for (size_t i = 0; i < lw.ops.size(); ++i) {
    const LayerOp& op = lw.ops[i];
    OverlapConfig& c = out[i];
    const bool own = op.config.has_value();
    if (op.kind == LayerOpKind::kAttention) {
      c.algorithm = Algorithm::kSerial;
      continue;
    }
    if (op.pass == Pass::kWgrad) {
      const Algorithm dgrad = out[i - 1].algorithm;  // the wgrad follows its dgrad (layer_workload.h)
      if (own) {
        c = *op.config;
        const int paired = out[i - 1].wgrad_comm_sms;
        if (op.column && dgrad == Algorithm::kBulk && paired > 0 && paired != c.comm_sms) {
          return Status::Invalid(op.name + ": its own `comm_sms` " + std::to_string(c.comm_sms) + " and " +
                                 lw.ops[i - 1].name + "'s `wgrad_comm_sms` " + std::to_string(paired) +
                                 " both set the reduce-scatter's SMs and disagree");
        }
      } else {
        c = WgradConfigBeside(out[i - 1], op.column);
        // A precision choice of the run: its all-gather moves it.
        if (c.algorithm != Algorithm::kBulk) c.comm_dtype = cfg.comm_dtype;
      }
    } else if (own) {
      c = *op.config;
    } else {
      c.algorithm = Derived(op, cfg.algorithm);
    }
    if (!own && c.algorithm != cfg.algorithm) {
      // The run's knobs that only its own algorithm takes.
      c.chunks = 1;
      c.splits.clear();
      c.wgrad_comm_sms = 0;
      if (c.algorithm == Algorithm::kSerial) c.sm_margin = false;
    }
    const std::string who = op.name + ": ";
    const std::string name(AlgorithmName(c.algorithm));
    if (own) {
      if (Status s = c.ValidateKnobs(); !s.ok()) return Status::Invalid(who + s.message());
    }
    switch (c.algorithm) {
      case Algorithm::kIso:
        return Status::Invalid(who + "iso splits a prefill's sequence: it does not apply to training layers");
      case Algorithm::kBulk:
        if (!op.column || op.pass == Pass::kFprop) {
          return Status::Invalid(who +
                                 "bulk applies to the backward of a column-parallel layer (qkv, fc1: dgrad "
                                 "and wgrad) only");
        }
        if (c.chunks != 1 || !c.splits.empty()) {
          return Status::Invalid(who + "bulk overlaps whole collectives: it takes no `chunks` or `splits`");
        }
        if (op.pass == Pass::kWgrad && out[i - 1].algorithm != Algorithm::kBulk) {
          return Status::Invalid(who + "bulk pairs a wgrad with its dgrad: " + lw.ops[i - 1].name +
                                 " must be bulk too");
        }
        break;
      case Algorithm::kExternal:
        if (op.column || op.pass != Pass::kWgrad) {
          return Status::Invalid(who + "external applies to the wgrad of a row-parallel layer (out_proj, fc2) only");
        }
        if (!IsRing(out[i - 1].algorithm)) {
          return Status::Invalid(who + "external is fed by its dgrad's ring exchange: " + lw.ops[i - 1].name +
                                 " must be ring or bidir_ring (it is " +
                                 std::string(AlgorithmName(out[i - 1].algorithm)) + ")");
        }
        if (op.gemm.m % lw.tp != 0) {
          return Status::Invalid(who + "external cuts M=" + std::to_string(op.gemm.m) +
                                 " into P=" + std::to_string(lw.tp) + " slices: M % P must be 0");
        }
        break;
      default:
        if (op.kind == LayerOpKind::kLocalGemm && c.algorithm != Algorithm::kSerial) {
          return Status::Invalid(who + name + " does not apply: this GEMM has no communication of its own " +
                                 "(serial, or external after a ring dgrad)");
        }
        if (op.kind == LayerOpKind::kTpGemm) {
          if (Status s = c.Validate(op.gemm); !s.ok()) return Status::Invalid(who + s.message());
        }
        break;
    }
    if (op.kind == LayerOpKind::kTpGemm) {
      if (Status s = CheckCommDType(op.gemm, c, c.algorithm); !s.ok()) return Status::Invalid(who + s.message());
    }
    if (op.pass == Pass::kDgrad && op.column && c.algorithm == Algorithm::kBulk && i + 1 < lw.ops.size() &&
        lw.ops[i + 1].config.has_value() && lw.ops[i + 1].config->algorithm != Algorithm::kBulk) {
      return Status::Invalid(lw.ops[i + 1].name + ": bulk pairs a wgrad with its dgrad: " + op.name +
                             " is bulk, so its wgrad must be bulk too");
    }
  }
  return out;
}

Result<Plan> BuildTrainPlan(const LayerWorkload& lw, const OverlapConfig& cfg) {
  BRAID_ASSIGN_OR_RETURN(auto methods, MethodsOf(lw, cfg));
  LayerBuilder b(lw, cfg);
  Emitted prev;
  bool first = true;
  for (size_t i = 0; i < lw.ops.size(); ++i) {
    const LayerOp& op = lw.ops[i];
    const Algorithm m = methods[i].algorithm;
    const bool pair = i + 1 < lw.ops.size() && lw.ops[i + 1].pass == Pass::kWgrad;
    const Algorithm next = pair ? methods[i + 1].algorithm : Algorithm::kSerial;
    OverlapConfig as_serial = methods[i];
    as_serial.algorithm = Algorithm::kSerial;
    Emitted group;
    if (m == Algorithm::kBulk && pair) {
      const int d = b.op_count();
      BRAID_ASSIGN_OR_RETURN(auto dgrad, b.Emit(op, 0, op.gemm.m, 0, lw.seq, as_serial));
      if (!first) b.Chain(dgrad, {&prev});
      OverlapConfig wgrad_cfg = methods[i + 1];
      wgrad_cfg.algorithm = Algorithm::kSerial;
      BRAID_ASSIGN_OR_RETURN(auto wgrad, b.Emit(lw.ops[i + 1], 0, lw.ops[i + 1].gemm.m, 0, lw.seq, wgrad_cfg));
      if (!first) b.Chain(wgrad, {&prev});
      b.SetBulkPair(d, methods[i], methods[i + 1]);
      group = b.Bulk(dgrad, wgrad);
      ++i;
    } else if (next == Algorithm::kExternal) {
      BRAID_ASSIGN_OR_RETURN(auto dgrad, b.Emit(op, 0, op.gemm.m, 0, lw.seq, methods[i]));
      if (!first) b.Chain(dgrad, {&prev});
      group = b.EmitExternal(lw.ops[i + 1], dgrad, methods[i + 1]);
      ++i;
    } else {
      BRAID_ASSIGN_OR_RETURN(group, b.Emit(op, 0, op.gemm.m, 0, lw.seq, methods[i]));
      if (!first) b.Chain(group, {&prev});
    }
    prev = std::move(group);
    first = false;
  }
  return b.Finish();
}

}  // namespace braid::detail

namespace braid {

OverlapConfig WgradConfigBeside(const OverlapConfig& dgrad, bool column) {
  OverlapConfig w;
  if (column && dgrad.algorithm == Algorithm::kBulk) {
    // The pair shares the dgrad's knobs, but for the reduce-scatter's
    // budget (TE's `<layer>_wgrad.num_sm`).
    w = dgrad;
    if (w.wgrad_comm_sms > 0) w.comm_sms = w.wgrad_comm_sms;
    w.wgrad_comm_sms = 0;
  } else if (!column && detail::IsRing(dgrad.algorithm)) {
    w.algorithm = Algorithm::kExternal;  // compute slices only
  }
  return w;
}

Result<std::vector<OverlapConfig>> TrainOpConfigs(const LayerWorkload& train, const OverlapConfig& run) {
  if (train.phase != Phase::kTrain) return Status::Invalid("per-op configs are derived for training layers only");
  BRAID_RETURN_IF_ERROR(run.ValidateKnobs());
  BRAID_RETURN_IF_ERROR(detail::CheckUlyssesMethods(train, run));
  return detail::MethodsOf(train, run);
}

}  // namespace braid
