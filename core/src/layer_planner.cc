// Layer plans: the ops of one transformer block in one Plan (planner.h).
#include <algorithm>
#include <string>
#include <utility>

#include "braid/planner.h"
#include "layer_builder.h"
#include "row_split.h"

namespace braid {

namespace {

using detail::Emitted;
using detail::LayerBuilder;

// A forward op's config: its own (LayerOp::config) where set, else the run's.
const OverlapConfig& ConfigOfOp(const LayerOp& op, const OverlapConfig& run) {
  return op.kind == LayerOpKind::kTpGemm && op.config.has_value() ? *op.config : run;
}

Result<Plan> BuildChained(const LayerWorkload& lw, const OverlapConfig& cfg) {
  for (const LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    const OverlapConfig& c = ConfigOfOp(op, cfg);
    if (c.algorithm == Algorithm::kIso || c.algorithm == Algorithm::kBulk || c.algorithm == Algorithm::kExternal) {
      return Status::Invalid(op.name + ": " + std::string(AlgorithmName(c.algorithm)) +
                             " is not a per-GEMM method of a forward layer");
    }
    if (Status s = c.Validate(op.gemm); !s.ok()) return Status::Invalid(op.name + ": " + s.message());
  }
  LayerBuilder b(lw, cfg);
  Emitted prev;
  bool first = true;
  for (const LayerOp& op : lw.ops) {
    BRAID_ASSIGN_OR_RETURN(auto e, b.Emit(op, 0, lw.tokens(), 0, lw.seq, ConfigOfOp(op, cfg)));
    if (!first) b.Chain(e, {&prev});
    prev = std::move(e);
    first = false;
  }
  return b.Finish();
}

Result<Plan> BuildIso(const LayerWorkload& lw, const OverlapConfig& cfg) {
  if (lw.sequence_parallel) {
    return Status::Invalid(
        "iso all-reduces each part: it needs sequence parallelism off "
        "(`sequence_parallel` off)");
  }
  if (lw.phase != Phase::kPrefill) {
    return Status::Invalid("iso splits the sequence of a prefill: it does not apply to decode");
  }
  BRAID_ASSIGN_OR_RETURN(auto parts, SplitRows(lw.seq, cfg.chunks, cfg.splits, "sequence positions (`seq`)"));
  OverlapConfig part_cfg = cfg;  // each part's collectives: whole, serial
  part_cfg.algorithm = Algorithm::kSerial;
  part_cfg.chunks = 1;
  part_cfg.splits.clear();
  LayerBuilder b(lw, cfg);
  b.set_parts(int(parts.size()));
  for (const LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    for (size_t j = 0; j < parts.size(); ++j) {
      Workload w = op.gemm;
      w.m = parts[j].rows * lw.batch;
      if (Status s = part_cfg.Validate(w); !s.ok()) {
        return Status::Invalid(op.name + " part " + std::to_string(j) + ": " + s.message());
      }
    }
  }
  // Emitted segment by segment, each segment part-major (planner.h): a
  // segment ends with an op that all-reduces, so on the compute lane part
  // j+1's ops up to its all-reduce come right after part j's all-reduce is
  // issued and run beside it, and part j's next segment, which waits for
  // that all-reduce, comes after them. emitted[op][part].
  std::vector<std::vector<Emitted>> emitted(lw.ops.size(), std::vector<Emitted>(parts.size()));
  for (size_t seg = 0; seg < lw.ops.size();) {
    size_t seg_end = seg;
    while (seg_end + 1 < lw.ops.size() && lw.ops[seg_end].kind != LayerOpKind::kTpGemm) ++seg_end;
    ++seg_end;
    for (size_t j = 0; j < parts.size(); ++j) {
      const RowRange q = parts[j];
      for (size_t i = seg; i < seg_end; ++i) {
        const LayerOp& op = lw.ops[i];
        BRAID_ASSIGN_OR_RETURN(emitted[i][j],
                               b.Emit(op, int(j), q.rows * lw.batch, q.begin, q.begin + q.rows, part_cfg));
        std::vector<const Emitted*> before;
        if (i > 0) before.push_back(&emitted[i - 1][j]);
        if (op.kind == LayerOpKind::kAttention) {
          for (size_t k = 0; k < j; ++k) before.push_back(&emitted[0][k]);
        }
        b.Chain(emitted[i][j], before);
      }
    }
    seg = seg_end;
  }
  return b.Finish();
}

}  // namespace

namespace detail {

Status CheckUlyssesMethods(const LayerWorkload& lw, const OverlapConfig& run) {
  auto refuse = [&lw](const std::string& who, Algorithm a) {
    if (lw.ulysses) {
      return Status::Invalid(who + "`algorithm` " + std::string(AlgorithmName(a)) +
                             " is a tensor-parallel method (sharded weights); a Ulysses block's projections run "
                             "a2a or a2a_direct");
    }
    return Status::Invalid(who + "`algorithm` " + std::string(AlgorithmName(a)) +
                           " is Ulysses sequence parallelism (replicated weights): it applies to single ops "
                           "(ag_gemm, gemm_rs) and to Ulysses blocks (`sequence_parallel` ulysses), not to a "
                           "tensor-parallel layer");
  };
  auto wrong = [&lw](Algorithm a) { return IsUlysses(a) != lw.ulysses; };
  bool run_used = false;  // the run's algorithm, where some projection takes it
  for (const LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    if (op.config.has_value()) {
      if (wrong(op.config->algorithm)) return refuse(op.name + ": ", op.config->algorithm);
    } else {
      run_used = true;
    }
  }
  if ((run_used || !lw.ulysses) && wrong(run.algorithm)) return refuse("", run.algorithm);
  return Status::Ok();
}

}  // namespace detail

Result<Plan> BuildSerialLayerPlan(const LayerWorkload& layer) {
  LayerWorkload serial = layer;
  for (LayerOp& op : serial.ops) op.config.reset();
  OverlapConfig plain;
  // A Ulysses block's baseline is the plain all-to-all beside each
  // projection (its ranks hold the whole weights: no TP collective applies).
  if (layer.ulysses) plain.algorithm = Algorithm::kA2a;
  return BuildLayerPlan(serial, plain);
}

Result<Plan> BuildLayerPlan(const LayerWorkload& layer, const OverlapConfig& config) {
  BRAID_RETURN_IF_ERROR(config.ValidateKnobs());
  if (layer.ops.empty()) return Status::Invalid("layer workload has no ops");
  BRAID_RETURN_IF_ERROR(detail::CheckUlyssesMethods(layer, config));
  if (layer.phase == Phase::kTrain) return detail::BuildTrainPlan(layer, config);
  if (config.algorithm == Algorithm::kBulk || config.algorithm == Algorithm::kExternal) {
    return Status::Invalid(std::string(AlgorithmName(config.algorithm)) +
                           " is a backward method: it applies to training layers (`phase` train) only");
  }
  if (config.algorithm == Algorithm::kIso) {
    for (const LayerOp& op : layer.ops) {
      if (op.config.has_value()) {
        return Status::Invalid(op.name + ": iso runs every op of a part serially; it takes no per-op config");
      }
    }
    return BuildIso(layer, config);
  }
  return BuildChained(layer, config);
}

}  // namespace braid
