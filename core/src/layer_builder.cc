#include "layer_builder.h"

#include <algorithm>
#include <string>
#include <utility>

namespace braid::detail {

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

void Reorder(RankPlan& rp, int begin, const std::vector<int>& order) {
  std::vector<int> new_id(rp.steps.size());
  for (size_t i = 0; i < new_id.size(); ++i) new_id[i] = int(i);
  for (size_t pos = 0; pos < order.size(); ++pos) new_id[size_t(order[pos])] = begin + int(pos);
  std::vector<Step> moved;
  moved.reserve(order.size());
  for (int old : order) moved.push_back(std::move(rp.steps[size_t(old)]));
  for (size_t pos = 0; pos < moved.size(); ++pos) {
    Step& s = moved[pos];
    s.id = begin + int(pos);
    for (int& d : s.deps) d = new_id[size_t(d)];
    std::sort(s.deps.begin(), s.deps.end());
    rp.steps[size_t(s.id)] = std::move(s);
  }
}

namespace {

// Steps of [begin, end) with no deps of their own wait for `before`.
void WaitFor(RankPlan& rp, int begin, int end, const std::vector<int>& before) {
  if (before.empty()) return;
  for (int i = begin; i < end; ++i) {
    Step& s = rp.steps[size_t(i)];
    if (s.deps.empty()) s.deps = before;
  }
}

}  // namespace

void PlanLocalGemm(const Workload& w, const OpScope& scope, Plan& plan, int chunks,
                   const std::vector<std::vector<std::vector<int>>>* deps_of) {
  const int64_t nb = w.n / w.tp;
  const int64_t rows = w.m / chunks;
  for (int r = 0; r < w.tp; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    RankBuilder rb(w, w.DefaultCommDType(), &rp, &scope);  // no transfers
    const BufferId a = rb.AddBuffer("A", w.m, w.k, BufferRole::kInput, {Matrix::kA, 0, w.m, 0, w.k, 0});
    const BufferId b = rb.AddBuffer("B_shard", w.k, nb, BufferRole::kInput, {Matrix::kB, 0, w.k, r * nb, nb, 0});
    const BufferId c = rb.AddBuffer("C", w.m, nb, BufferRole::kOutput);
    for (int j = 0; j < chunks; ++j) {
      std::vector<int> deps = deps_of != nullptr ? (*deps_of)[size_t(r)][size_t(j)] : std::vector<int>{};
      rb.Gemm(0, Region::Rows(a, j * rows, rows), b, Region::Rows(c, j * rows, rows), std::move(deps),
              chunks > 1 ? j : 0, chunks > 1 ? j : -1);
    }
    rp.output = c;
    rp.output_window = {0, w.m, r * nb, nb};
  }
}

void PlanRowLocalGemm(const Workload& w, const OpScope& scope, Plan& plan) {
  const int64_t rows = w.m / w.tp;
  for (int r = 0; r < w.tp; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    RankBuilder rb(w, w.DefaultCommDType(), &rp, &scope);  // no transfers
    const BufferId a = rb.AddBuffer("A_rows", rows, w.k, BufferRole::kInput, {Matrix::kA, r * rows, rows, 0, w.k, 0});
    const BufferId b = rb.AddBuffer("B", w.k, w.n, BufferRole::kInput, {Matrix::kB, 0, w.k, 0, w.n, 0});
    const BufferId c = rb.AddBuffer("C_rows", rows, w.n, BufferRole::kOutput);
    rb.Gemm(0, Region::Rows(a, 0, rows), b, Region::Rows(c, 0, rows), {}, 0, -1);
    rp.output = c;
    rp.output_window = {r * rows, rows, 0, w.n};
  }
}

LayerBuilder::LayerBuilder(const LayerWorkload& lw, const OverlapConfig& cfg) : lw_(lw) {
  plan_.config = cfg;
  plan_.lanes = MakeLanes(cfg);
  plan_.ranks.resize(size_t(lw.tp));
}

Result<Emitted> LayerBuilder::Emit(const LayerOp& op, int part, int64_t tokens, int64_t q_begin, int64_t q_end,
                                   const OverlapConfig& cfg) {
  const int index = int(plan_.ops.size());
  PlanOp po;
  po.name = parts_ > 1 ? op.name + ".part" + std::to_string(part) : op.name;
  po.workload = op.gemm;
  po.workload.m = tokens;
  po.gemm = op.kind != LayerOpKind::kAttention;
  po.local = op.kind == LayerOpKind::kLocalGemm || op.kind == LayerOpKind::kRowLocalGemm;
  po.part = part;
  po.method = cfg.algorithm;
  po.comm_dtype = CommDType(po.workload, cfg);
  po.config = cfg;
  po.knobs = KnobsOf(cfg);
  plan_.ops.push_back(po);
  OpScope scope{po.name + ".", index, int64_t(index) << 32, part};
  Emitted e;
  for (const RankPlan& rp : plan_.ranks) e.begin.push_back(int(rp.steps.size()));
  Status s;
  switch (op.kind) {
    case LayerOpKind::kAttention: {
      const bool backward = op.pass != Pass::kFprop;
      const double flops = AttentionFlops(lw_, q_begin, q_end) * (backward ? kAttentionBackwardFlopsRatio : 1.0);
      const int64_t bytes = AttentionBytes(lw_, q_begin, q_end) * (backward ? kAttentionBackwardBytesRatio : 1);
      for (int r = 0; r < lw_.tp; ++r) {
        RankBuilder rb(po.workload, po.workload.DefaultCommDType(), &plan_.ranks[size_t(r)], &scope);
        rb.Compute(0, po.name, flops, bytes, {}, part);
      }
      break;
    }
    case LayerOpKind::kLocalGemm:
      PlanLocalGemm(po.workload, scope, plan_);
      break;
    case LayerOpKind::kRowLocalGemm:
      PlanRowLocalGemm(po.workload, scope, plan_);
      break;
    case LayerOpKind::kTpGemm:
      if (cfg.algorithm == Algorithm::kFused) {
        s = BuildFusedPlan(po.workload, cfg, plan_, scope);
      } else if (cfg.algorithm == Algorithm::kRing || cfg.algorithm == Algorithm::kBidirRing) {
        s = BuildRingPlan(po.workload, cfg, plan_, scope);
      } else if (cfg.algorithm == Algorithm::kDirect) {
        s = BuildDirectPlan(po.workload, cfg, plan_, scope);
      } else if (IsUlysses(cfg.algorithm)) {
        s = BuildUlyssesPlan(po.workload, cfg, plan_, scope);
      } else {
        s = BuildCollectivePlan(po.workload, cfg, plan_, scope);
      }
      break;
  }
  if (!s.ok()) return Status::Invalid(po.name + ": " + s.message());
  for (int r = 0; r < lw_.tp; ++r) {
    RankPlan& rp = plan_.ranks[size_t(r)];
    for (size_t i = size_t(e.begin[size_t(r)]); i < rp.steps.size(); ++i) {
      Step& step = rp.steps[i];
      if (step.lane > 0) step.lane = CommLane(cfg.comm_high_priority, step.lane - 1);
    }
    e.end.push_back(int(rp.steps.size()));
    if (po.gemm) rp.outputs.push_back({index, rp.output, rp.output_window});
  }
  return e;
}

int LayerBuilder::CommLane(bool high, int index) {
  const int priority = high ? 1 : 0;
  int seen = 0, comm = 0;
  for (size_t l = 0; l < plan_.lanes.size(); ++l) {
    const Lane& lane = plan_.lanes[l];
    if (lane.kind != LaneKind::kComm) continue;
    ++comm;
    if (lane.priority == priority && seen++ == index) return int(l);
  }
  // Missing lanes of this priority, up to `index`.
  for (; seen <= index; ++seen) plan_.lanes.push_back({"comm" + std::to_string(comm++), LaneKind::kComm, priority});
  return int(plan_.lanes.size()) - 1;
}

void LayerBuilder::SetBulkPair(int dgrad, const OverlapConfig& d, const OverlapConfig& w) {
  PlanOp& dop = plan_.ops[size_t(dgrad)];
  PlanOp& wop = plan_.ops[size_t(dgrad) + 1];
  dop.method = wop.method = Algorithm::kBulk;
  dop.config = d;
  wop.config = w;
  // The dgrad's reduce-scatter runs beside the wgrad GEMM and the wgrad's
  // all-gather beside the dgrad GEMM: each on the other's budget; each
  // GEMM's margin is its own config's budget, the comm's beside it.
  dop.knobs = {
      .comm_sms = w.comm_sms, .comm_engine = w.comm_engine, .sm_margin = d.sm_margin, .margin_sms = d.comm_sms};
  wop.knobs = {
      .comm_sms = d.comm_sms, .comm_engine = d.comm_engine, .sm_margin = w.sm_margin, .margin_sms = w.comm_sms};
}

Emitted LayerBuilder::EmitExternal(const LayerOp& op, const Emitted& dgrad, const OverlapConfig& cfg) {
  const int index = int(plan_.ops.size());
  PlanOp po;
  po.name = op.name;
  po.workload = op.gemm;
  po.local = true;
  po.method = Algorithm::kExternal;
  po.comm_dtype = po.workload.DefaultCommDType();  // fed by its dgrad's exchange: no transfers of its own
  po.config = cfg;
  // Its slices are GEMMs on the compute lane between the dgrad's: no comm
  // kernel of its own, nor a margin (its dgrad's kernels hold what they hold).
  po.knobs = OpKnobs{};
  plan_.ops.push_back(po);
  const OpScope scope{po.name + ".", index, int64_t(index) << 32, 0};
  const int p = lw_.tp;
  // deps[r][j]: rank r's dgrad GEMMs of ring step j.
  std::vector<std::vector<std::vector<int>>> deps(static_cast<size_t>(p),
                                                  std::vector<std::vector<int>>(static_cast<size_t>(p)));
  for (int r = 0; r < p; ++r) {
    const RankPlan& rp = plan_.ranks[size_t(r)];
    for (int i = dgrad.begin[size_t(r)]; i < dgrad.end[size_t(r)]; ++i) {
      const Step& s = rp.steps[size_t(i)];
      if (s.kind == StepKind::kGemm && s.lane == 0 && s.ring_step >= 0 && s.ring_step < p) {
        deps[size_t(r)][size_t(s.ring_step)].push_back(i);
      }
    }
  }
  std::vector<int> wgrad_begin;
  for (const RankPlan& rp : plan_.ranks) wgrad_begin.push_back(int(rp.steps.size()));
  PlanLocalGemm(po.workload, scope, plan_, p, &deps);
  Emitted both;
  for (int r = 0; r < p; ++r) {
    RankPlan& rp = plan_.ranks[size_t(r)];
    rp.outputs.push_back({index, rp.output, rp.output_window});
    // Slice j goes right after the last dgrad step it waits for.
    std::vector<std::vector<int>> after(rp.steps.size());
    std::vector<int> unplaced;
    for (int j = 0; j < p; ++j) {
      const int w = wgrad_begin[size_t(r)] + j;
      const std::vector<int>& d = deps[size_t(r)][size_t(j)];
      if (d.empty()) {
        unplaced.push_back(w);
      } else {
        after[size_t(*std::max_element(d.begin(), d.end()))].push_back(w);
      }
    }
    std::vector<int> order;
    for (int i = dgrad.begin[size_t(r)]; i < wgrad_begin[size_t(r)]; ++i) {
      order.push_back(i);
      order.insert(order.end(), after[size_t(i)].begin(), after[size_t(i)].end());
    }
    order.insert(order.end(), unplaced.begin(), unplaced.end());
    Reorder(rp, dgrad.begin[size_t(r)], order);
    both.begin.push_back(dgrad.begin[size_t(r)]);
    both.end.push_back(int(rp.steps.size()));
  }
  return both;
}

Emitted LayerBuilder::Bulk(const Emitted& first, const Emitted& second) {
  Emitted both;
  for (int r = 0; r < lw_.tp; ++r) {
    RankPlan& rp = plan_.ranks[size_t(r)];
    const int b1 = first.begin[size_t(r)], b2 = second.begin[size_t(r)], e2 = second.end[size_t(r)];
    int lead = b2;  // second's steps before its first compute-lane step
    while (lead < e2 && plan_.lanes[size_t(rp.steps[size_t(lead)].lane)].kind != LaneKind::kCompute) ++lead;
    std::vector<int> order;
    for (int i = b2; i < lead; ++i) order.push_back(i);
    for (int i = b1; i < b2; ++i) order.push_back(i);
    for (int i = lead; i < e2; ++i) order.push_back(i);
    Reorder(rp, b1, order);
    // TE runs a bulk overlap's collectives on their own stream: so does the
    // plan, on a lane named "bulk", which also makes the pair readable in a
    // timeline.
    for (int i = b1; i < e2; ++i) {
      Step& step = rp.steps[size_t(i)];
      const Lane& lane = plan_.lanes[size_t(step.lane)];
      if (lane.kind != LaneKind::kCompute) step.lane = NamedLane("bulk", lane.priority);
    }
    both.begin.push_back(b1);
    both.end.push_back(e2);
  }
  return both;
}

int LayerBuilder::NamedLane(const std::string& name, int priority) {
  for (size_t l = 0; l < plan_.lanes.size(); ++l) {
    if (plan_.lanes[l].name == name && plan_.lanes[l].priority == priority) return int(l);
  }
  const bool taken = std::any_of(plan_.lanes.begin(), plan_.lanes.end(), [&](const Lane& l) { return l.name == name; });
  plan_.lanes.push_back({taken ? name + (priority > 0 ? ".high" : ".normal") : name, LaneKind::kComm, priority});
  return int(plan_.lanes.size()) - 1;
}

void LayerBuilder::Chain(const Emitted& e, const std::vector<const Emitted*>& before) {
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

Plan LayerBuilder::Finish() {
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

}  // namespace braid::detail
