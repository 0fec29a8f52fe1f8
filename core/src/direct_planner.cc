// direct: the collective as P−1 transfers straight between each pair of
// ranks, none passed on. At step s (1 ≤ s < P) every rank sends to r+s and
// receives from r−s, so each step is a permutation and every rank receives
// exactly one block per step. This is what TransformerEngine's ring_exchange
// reduce-scatter and PyTorch async-TP's symmetric-memory all-gather and
// reduce-scatter do on an NVSwitch, where every pair of GPUs has the same
// bandwidth.
//   ag_gemm: the rank sends its own block to every peer (no transfer waits
//     for an earlier one, unlike a ring's store-and-forward), multiplies its
//     own block first and each peer's block as it lands.
//   gemm_rs: the rank computes the partial for peer r+s and sends it
//     straight to that peer, so each partial travels once and no partial
//     waits for another's add (a ring adds at every hop). The partials that
//     land are summed as they arrive; the rank's own partial is computed
//     last, so only one add follows the last GEMM.
#include <utility>

#include "pairwise_blocks.h"
#include "plan_builder.h"

namespace braid::detail {

namespace {

struct DirectContext : PairwiseBlocks {
  const Workload& w;
  const OverlapConfig& cfg;
  const OpScope& scope;
};

void PlanAgRank(const DirectContext& x, int r, RankPlan& rp) {
  RankBuilder rb(x.w, CommDType(x.w, x.cfg), &rp, &x.scope);
  const OpBuffers ob = AddOpBuffers(x.w, r, rb, rp);
  for (int j = 0; j < x.subs_count(); ++j) {
    rb.Gemm(0, x.BlockRows(ob.a, r, j), ob.b, x.BlockRows(ob.out, r, j), {}, j, 0);
  }
  for (int s = 1; s < x.p; ++s) {
    const int dst = Mod(r + s, x.p), src = Mod(r - s, x.p);
    for (int j = 0; j < x.subs_count(); ++j) {
      rb.Send(x.SendLane(), x.BlockRows(ob.a, r, j), dst, x.Match(r, s, j), {}, j, s);
      const int got = rb.Recv(x.RecvLane(), x.BlockRows(ob.a, src, j), src, x.Match(src, s, j), {}, j, s);
      rb.Gemm(0, x.BlockRows(ob.a, src, j), ob.b, x.BlockRows(ob.out, src, j), {got}, j, s);
    }
  }
}

void PlanRsRank(const DirectContext& x, int r, RankPlan& rp) {
  RankBuilder rb(x.w, CommDType(x.w, x.cfg), &rp, &x.scope);
  const OpBuffers ob = AddOpBuffers(x.w, r, rb, rp);
  const BufferId work = rb.AddBuffer("partial", x.w.m, x.w.n, BufferRole::kWorkspace);
  const BufferId inbox = rb.AddBuffer("received", x.w.m, x.w.n, BufferRole::kWorkspace);
  // The running sum of a sub-chunk is step 1's arrival until a second one
  // lands, then the output; `ready` is the step that last wrote it.
  const int first_src = Mod(r - 1, x.p);
  std::vector<int> ready(size_t(x.subs_count()), -1);
  auto running_sum = [&](int s, int j) {
    return s == 2 ? x.BlockRows(inbox, first_src, j) : x.BlockRows(ob.out, 0, j);
  };
  for (int s = 1; s < x.p; ++s) {
    const int dst = Mod(r + s, x.p), src = Mod(r - s, x.p);
    for (int j = 0; j < x.subs_count(); ++j) {
      const Region part = x.BlockRows(work, dst, j);
      const int g = rb.Gemm(0, x.BlockRows(ob.a, dst, j), ob.b, part, {}, j, s);
      rb.Send(x.SendLane(), part, dst, x.Match(r, s, j), {g}, j, s);
      const Region in = x.BlockRows(inbox, src, j);
      const int got = rb.Recv(x.RecvLane(), in, src, x.Match(src, s, j), {}, j, s);
      ready[size_t(j)] = s == 1 ? got
                                : rb.Reduce(x.RecvLane(), x.BlockRows(ob.out, 0, j), running_sum(s, j), in,
                                            {ready[size_t(j)], got}, j, s);
    }
  }
  // The own block last: its add is the only one after the last GEMM.
  for (int j = 0; j < x.subs_count(); ++j) {
    const Region part = x.BlockRows(work, r, j);
    const int g = rb.Gemm(0, x.BlockRows(ob.a, r, j), ob.b, part, {}, j, x.p);
    rb.Reduce(x.RecvLane(), x.BlockRows(ob.out, 0, j), running_sum(x.p, j), part, {ready[size_t(j)], g}, j, x.p);
  }
}

}  // namespace

Status BuildDirectPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope) {
  if (w.op == Op::kGemmAr) return Status::Invalid("direct does not apply to gemm_ar");
  BRAID_ASSIGN_OR_RETURN(PairwiseBlocks blocks, MakePairwiseBlocks(w, cfg));
  const DirectContext x{std::move(blocks), w, cfg, scope};
  for (int r = 0; r < w.tp; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    if (w.tp == 1) {
      RankBuilder rb(w, CommDType(w, cfg), &rp, &scope);
      const OpBuffers ob = AddOpBuffers(w, r, rb, rp);
      rb.Gemm(0, rb.Whole(ob.a), ob.b, rb.Whole(ob.out), {}, 0, -1);
      continue;
    }
    if (w.op == Op::kAgGemm) {
      PlanAgRank(x, r, rp);
    } else {
      PlanRsRank(x, r, rp);
    }
  }
  return Status::Ok();
}

}  // namespace braid::detail
