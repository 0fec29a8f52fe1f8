// a2a and a2a_direct: DeepSpeed-Ulysses sequence parallelism's two
// all-to-alls as point-to-point transfers beside the projections
// (overlap_config.h). Every rank holds its sequence shard of the
// activations and the whole, replicated weight B, declared as P input
// buffers, one per peer's block: a Region is always whole rows, so
// ag_gemm's column block j of B or gemm_rs's K shard j must be a buffer of
// its own to be a GEMM's b.
//   ag_gemm (the QKV projection, then the all-to-all): rank r multiplies its
//     rows of A (M/P × K) by column block j of B (K × N/P) and sends the
//     result to rank j, which stores it at its rows r of C; each rank ends
//     with C[all M, column block r], ag_gemm's output window. A is never
//     gathered.
//   gemm_rs (the all-to-all, then the out-projection): rank r holds A[all M,
//     K shard r] (gemm_rs's A window) and sends the raw rows A[rows q, K
//     shard r] to each q — activations, never partial products; it
//     multiplies each A[rows r, K shard j] it receives by its own B[K shard
//     j] into its output (Step::accumulate: C += A·B, cuBLAS's beta = 1,
//     so no add kernel runs, as in the one GEMM over the gathered K that a
//     Ulysses output projection runs): C[rows r], gemm_rs's output window.
// What moves: each rank sends (P−1)/P of its block of C rows ((P−1) blocks
// of M/P × N/P, in the output dtype) or of its A shard ((P−1) blocks of
// M/P × K/P, in the input dtype: FP8 stays FP8). The tensor-parallel
// all-gather of A sends (P−1) blocks of M/P × K and the reduce-scatter
// (P−1) blocks of M/P × N of partials, so Ulysses moves far fewer bytes
// whenever N/P < K (QKV) or K/P < N (out-projection) — at the price of
// every rank holding all of B.
// Step s (1 ≤ s < P) pairs r → r+s and r−s → r, as direct does.
//   a2a (the baseline): ag_gemm computes every block, then posts the whole
//     all-to-all; gemm_rs waits for the whole all-to-all, then multiplies
//     block by block into its output (the one GEMM over K, cut at the K
//     shards). Nothing overlaps.
//   a2a_direct: ag_gemm computes the block for r+s and sends it at once
//     while the next block computes, the own block last so that the last
//     transfer runs beside its GEMM (only one transfer, not one plus a GEMM,
//     is left after the last GEMM; the first send waits for one GEMM, not
//     two). gemm_rs computes the own block first (its data is there: compute
//     starts at once), sends every peer's block at once, and multiplies each
//     arriving block into the running sum as it lands.
#include <string>
#include <utility>
#include <vector>

#include "pairwise_blocks.h"
#include "plan_builder.h"

namespace braid::detail {

namespace {

struct UlyssesContext : PairwiseBlocks {
  const Workload& w;
  const OverlapConfig& cfg;
  const OpScope& scope;
  bool decomposed = false;  // a2a_direct

  // Sub-chunk j of a buffer of one block (the rank's own rows only).
  Region SubRows(BufferId buf, int j) const { return BlockRows(buf, 0, j); }
};

// One input buffer per block of the replicated B.
std::vector<BufferId> AddReplicatedB(const UlyssesContext& x, RankBuilder& rb) {
  std::vector<BufferId> b;
  const bool ag = x.w.op == Op::kAgGemm;
  const int64_t nb = x.w.n / x.p, kb = x.w.k / x.p;
  for (int j = 0; j < x.p; ++j) {
    const std::string id = std::to_string(j);
    b.push_back(ag ? rb.AddBuffer("B_cols" + id, x.w.k, nb, BufferRole::kInput, {Matrix::kB, 0, x.w.k, j * nb, nb, 0})
                   : rb.AddBuffer("B_rows" + id, kb, x.w.n, BufferRole::kInput, {Matrix::kB, j * kb, kb, 0, x.w.n, 0}));
  }
  return b;
}

void PlanAgRank(const UlyssesContext& x, int r, RankPlan& rp) {
  RankBuilder rb(x.w, CommDType(x.w, x.cfg), &rp, &x.scope);
  const int64_t nb = x.w.n / x.p;
  const BufferId a =
      rb.AddBuffer("A_block", x.mb, x.w.k, BufferRole::kInput, {Matrix::kA, r * x.mb, x.mb, 0, x.w.k, 0});
  const std::vector<BufferId> b = AddReplicatedB(x, rb);
  const BufferId out = rb.AddBuffer("C", x.w.m, nb, BufferRole::kOutput);
  rp.output = out;
  rp.output_window = {0, x.w.m, r * nb, nb};
  // Block j: C[rows r, column block j], computed here for rank j.
  const BufferId outbox = x.p > 1 ? rb.AddBuffer("C_for_peers", x.w.m, nb, BufferRole::kWorkspace) : -1;
  for (int s = 1; s < x.p; ++s) {
    const int dst = Mod(r + s, x.p), src = Mod(r - s, x.p);
    for (int j = 0; j < x.subs_count(); ++j) {
      const int g = rb.Gemm(0, x.SubRows(a, j), b[size_t(dst)], x.BlockRows(outbox, dst, j), {}, j, s);
      if (!x.decomposed) continue;
      rb.Send(x.SendLane(), x.BlockRows(outbox, dst, j), dst, x.Match(r, s, j), {g}, j, s);
      rb.Recv(x.RecvLane(), x.BlockRows(out, src, j), src, x.Match(src, s, j), {}, j, s);
    }
  }
  int last = -1;
  for (int j = 0; j < x.subs_count(); ++j) {
    last = rb.Gemm(0, x.SubRows(a, j), b[size_t(r)], x.BlockRows(out, r, j), {}, j, x.p);
  }
  if (x.decomposed) return;
  // The baseline: the whole all-to-all after the last GEMM.
  for (int s = 1; s < x.p; ++s) {
    const int dst = Mod(r + s, x.p), src = Mod(r - s, x.p);
    for (int j = 0; j < x.subs_count(); ++j) {
      rb.Send(x.SendLane(), x.BlockRows(outbox, dst, j), dst, x.Match(r, s, j), {last}, j, s);
      rb.Recv(x.RecvLane(), x.BlockRows(out, src, j), src, x.Match(src, s, j), {last}, j, s);
    }
  }
}

void PlanRsRank(const UlyssesContext& x, int r, RankPlan& rp) {
  RankBuilder rb(x.w, CommDType(x.w, x.cfg), &rp, &x.scope);
  const int64_t kb = x.w.k / x.p;
  const BufferId a = rb.AddBuffer("A_shard", x.w.m, kb, BufferRole::kInput, {Matrix::kA, 0, x.w.m, r * kb, kb, 0});
  const std::vector<BufferId> b = AddReplicatedB(x, rb);
  const BufferId out = rb.AddBuffer("C", x.mb, x.w.n, BufferRole::kOutput);
  rp.output = out;
  rp.output_window = {r * x.mb, x.mb, 0, x.w.n};
  // Block j: A[rows r, K shard j] from rank j, and its product with B[K shard j].
  const BufferId inbox = x.p > 1 ? rb.AddBuffer("A_from_peers", x.w.m, kb, BufferRole::kWorkspace) : -1;
  // Transfers: the own K shard of rows r+s to r+s, rows r of K shard r−s
  // from r−s. The baseline's GEMMs all wait for the whole all-to-all.
  std::vector<int> moved;
  auto transfer = [&](int s, int j) {
    const int dst = Mod(r + s, x.p), src = Mod(r - s, x.p);
    moved.push_back(rb.Send(x.SendLane(), x.BlockRows(a, dst, j), dst, x.Match(r, s, j), {}, j, s));
    moved.push_back(rb.Recv(x.RecvLane(), x.BlockRows(inbox, src, j), src, x.Match(src, s, j), {}, j, s));
    return moved.back();
  };
  if (!x.decomposed) {
    for (int s = 1; s < x.p; ++s) {
      for (int j = 0; j < x.subs_count(); ++j) transfer(s, j);
    }
  }
  // The running sum of sub-chunk j is the output, first written by the own
  // block's GEMM; `ready` is the step that last wrote it.
  std::vector<int> ready(size_t(x.subs_count()), -1);
  for (int j = 0; j < x.subs_count(); ++j) {
    ready[size_t(j)] = rb.Gemm(0, x.BlockRows(a, r, j), b[size_t(r)], x.SubRows(out, j),
                               x.decomposed ? std::vector<int>{} : moved, j, 0);
  }
  for (int s = 1; s < x.p; ++s) {
    const int src = Mod(r - s, x.p);
    for (int j = 0; j < x.subs_count(); ++j) {
      std::vector<int> deps{ready[size_t(j)]};
      if (x.decomposed) deps.push_back(transfer(s, j));
      // Summed in the GEMM's epilogue (beta = 1), as the one GEMM over the
      // gathered K that a Ulysses output projection runs: no add kernel.
      const int g = rb.Gemm(0, x.BlockRows(inbox, src, j), b[size_t(src)], x.SubRows(out, j), std::move(deps), j, s);
      rp.steps[size_t(g)].accumulate = true;
      ready[size_t(j)] = g;
    }
  }
}

}  // namespace

Status BuildUlyssesPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope) {
  if (w.op == Op::kGemmAr)
    return Status::Invalid(std::string(AlgorithmName(cfg.algorithm)) + " does not apply to gemm_ar");
  BRAID_ASSIGN_OR_RETURN(PairwiseBlocks blocks, MakePairwiseBlocks(w, cfg));
  const UlyssesContext x{std::move(blocks), w, cfg, scope, cfg.algorithm == Algorithm::kA2aDirect};
  for (int r = 0; r < w.tp; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    if (w.op == Op::kAgGemm) {
      PlanAgRank(x, r, rp);
    } else {
      PlanRsRank(x, r, rp);
    }
  }
  return Status::Ok();
}

}  // namespace braid::detail
