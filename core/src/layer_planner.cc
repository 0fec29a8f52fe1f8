// Layer plans: the ops of one transformer block in one Plan (planner.h).
#include <algorithm>
#include <utility>

#include "braid/planner.h"
#include "plan_builder.h"
#include "row_split.h"

namespace braid {

namespace {

// One op (of one part) as emitted: per rank the step ids [begin, end).
struct Emitted {
  std::vector<int> begin, end;
};

// Steps of [begin, end) that no step of the range names as a dep.
std::vector<int> Sinks(const RankPlan& rp, int begin, int end) {
  std::vector<bool> used(size_t(end - begin), false);
  for (int i = begin; i < end; ++i) {
    for (int d : rp.steps[size_t(i)].deps) {
      if (d >= begin) used[size_t(d - begin)] = true;
    }
  }
  std::vector<int> out;
  for (int i = begin; i < end; ++i) {
    if (!used[size_t(i - begin)]) out.push_back(i);
  }
  return out;
}

// Steps of [begin, end) with no deps of their own wait for `before`.
void WaitFor(RankPlan& rp, int begin, int end, const std::vector<int>& before) {
  if (before.empty()) return;
  for (int i = begin; i < end; ++i) {
    Step& s = rp.steps[size_t(i)];
    if (s.deps.empty()) s.deps = before;
  }
}

// A plain column-parallel GEMM: every rank holds all of A and multiplies it by
// its column shard of B.
void PlanLocalGemm(const Workload& w, const detail::OpScope& scope, Plan& plan) {
  const int64_t nb = w.n / w.tp;
  for (int r = 0; r < w.tp; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    detail::RankBuilder rb(w, &rp, &scope);
    const BufferId a = rb.AddBuffer("A", w.m, w.k, BufferRole::kInput, {Matrix::kA, 0, w.m, 0, w.k, 0});
    const BufferId b = rb.AddBuffer("B_shard", w.k, nb, BufferRole::kInput, {Matrix::kB, 0, w.k, r * nb, nb, 0});
    const BufferId c = rb.AddBuffer("C", w.m, nb, BufferRole::kOutput);
    rb.Gemm(0, rb.Whole(a), b, rb.Whole(c), {}, 0, -1);
    rp.output = c;
    rp.output_window = {0, w.m, r * nb, nb};
  }
}

class LayerBuilder {
 public:
  LayerBuilder(const LayerWorkload& lw, const OverlapConfig& cfg) : lw_(lw) {
    plan_.config = cfg;
    plan_.lanes = detail::MakeLanes(cfg);
    plan_.ranks.resize(size_t(lw.tp));
  }

  // Emits op `op` of the layer (for part `part`, rows = its tokens, queries
  // [q_begin, q_end)) and returns its step ranges.
  Result<Emitted> Emit(const LayerOp& op, int part, int64_t tokens, int64_t q_begin, int64_t q_end,
                       const OverlapConfig& cfg) {
    const int index = int(plan_.ops.size());
    PlanOp po;
    po.name = parts_ > 1 ? op.name + ".part" + std::to_string(part) : op.name;
    po.workload = op.gemm;
    po.workload.m = tokens;
    po.gemm = op.kind != LayerOpKind::kAttention;
    po.local = op.kind == LayerOpKind::kLocalGemm;
    po.part = part;
    plan_.ops.push_back(po);
    detail::OpScope scope{po.name + ".", index, int64_t(index) << 32, part};
    Emitted e;
    for (const RankPlan& rp : plan_.ranks) e.begin.push_back(int(rp.steps.size()));
    Status s;
    switch (op.kind) {
      case LayerOpKind::kAttention:
        for (int r = 0; r < lw_.tp; ++r) {
          detail::RankBuilder rb(po.workload, &plan_.ranks[size_t(r)], &scope);
          rb.Compute(0, po.name, AttentionFlops(lw_, q_begin, q_end), AttentionBytes(lw_, q_begin, q_end), {}, part);
        }
        break;
      case LayerOpKind::kLocalGemm:
        PlanLocalGemm(po.workload, scope, plan_);
        break;
      case LayerOpKind::kTpGemm:
        if (cfg.algorithm == Algorithm::kFused) {
          s = detail::BuildFusedPlan(po.workload, cfg, plan_, scope);
        } else if (cfg.algorithm == Algorithm::kRing || cfg.algorithm == Algorithm::kBidirRing) {
          s = detail::BuildRingPlan(po.workload, cfg, plan_, scope);
        } else {
          s = detail::BuildCollectivePlan(po.workload, cfg, plan_, scope);
        }
        break;
    }
    if (!s.ok()) return Status::Invalid(po.name + ": " + s.message());
    for (int r = 0; r < lw_.tp; ++r) {
      RankPlan& rp = plan_.ranks[size_t(r)];
      e.end.push_back(int(rp.steps.size()));
      if (po.gemm) rp.outputs.push_back({index, rp.output, rp.output_window});
    }
    return e;
  }

  // Op `e` waits, on every rank, for the last steps of each of `before`.
  void Chain(const Emitted& e, const std::vector<const Emitted*>& before) {
    for (int r = 0; r < lw_.tp; ++r) {
      RankPlan& rp = plan_.ranks[size_t(r)];
      std::vector<int> deps;
      for (const Emitted* b : before) {
        const std::vector<int> sinks = Sinks(rp, b->begin[size_t(r)], b->end[size_t(r)]);
        deps.insert(deps.end(), sinks.begin(), sinks.end());
      }
      std::sort(deps.begin(), deps.end());
      WaitFor(rp, e.begin[size_t(r)], e.end[size_t(r)], deps);
    }
  }

  Plan Finish() {
    for (RankPlan& rp : plan_.ranks) {
      rp.output = rp.outputs.front().buffer;
      rp.output_window = rp.outputs.front().window;
    }
    for (const PlanOp& op : plan_.ops) {
      if (op.gemm) {
        plan_.workload = op.workload;
        break;
      }
    }
    return std::move(plan_);
  }

  void set_parts(int parts) { parts_ = parts; }

 private:
  const LayerWorkload& lw_;
  Plan plan_;
  int parts_ = 1;
};

Result<Plan> BuildChained(const LayerWorkload& lw, const OverlapConfig& cfg) {
  for (const LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    if (Status s = cfg.Validate(op.gemm); !s.ok()) return Status::Invalid(op.name + ": " + s.message());
  }
  LayerBuilder b(lw, cfg);
  Emitted prev;
  bool first = true;
  for (const LayerOp& op : lw.ops) {
    BRAID_ASSIGN_OR_RETURN(auto e, b.Emit(op, 0, lw.tokens(), 0, lw.seq, cfg));
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
  // emitted[op][part], emitted op-major (see planner.h).
  std::vector<std::vector<Emitted>> emitted(lw.ops.size());
  for (size_t i = 0; i < lw.ops.size(); ++i) {
    const LayerOp& op = lw.ops[i];
    for (int j = 0; j < int(parts.size()); ++j) {
      const RowRange q = parts[size_t(j)];
      const int64_t tokens = q.rows * lw.batch;
      if (op.kind == LayerOpKind::kTpGemm) {
        Workload w = op.gemm;
        w.m = tokens;
        if (Status s = part_cfg.Validate(w); !s.ok()) {
          return Status::Invalid(op.name + " part " + std::to_string(j) + ": " + s.message());
        }
      }
      BRAID_ASSIGN_OR_RETURN(auto e, b.Emit(op, j, tokens, q.begin, q.begin + q.rows, part_cfg));
      emitted[i].push_back(std::move(e));
      std::vector<const Emitted*> before;
      if (i > 0) before.push_back(&emitted[i - 1][size_t(j)]);
      if (op.kind == LayerOpKind::kAttention) {
        for (int k = 0; k < j; ++k) before.push_back(&emitted[0][size_t(k)]);
      }
      b.Chain(emitted[i].back(), before);
    }
  }
  return b.Finish();
}

}  // namespace

Result<Plan> BuildLayerPlan(const LayerWorkload& layer, const OverlapConfig& config) {
  BRAID_RETURN_IF_ERROR(config.ValidateKnobs());
  if (layer.ops.empty()) return Status::Invalid("layer workload has no ops");
  if (config.algorithm == Algorithm::kIso) return BuildIso(layer, config);
  return BuildChained(layer, config);
}

}  // namespace braid
