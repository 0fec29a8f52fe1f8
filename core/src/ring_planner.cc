// ring and bidir_ring: the collective decomposed into P−1 peer-to-peer steps
// (CommFuse / ring exchange). A "direction" is one ring (+1 or −1) that
// carries a fixed row range of every block; ring has one, bidir_ring two,
// each carrying half of every block.
#include "plan_builder.h"
#include "row_split.h"

namespace braid::detail {

namespace {

struct Direction {
  int sign;                    // +1: send to r+1, receive from r−1
  int64_t offset;              // first row of the block this direction carries
  std::vector<RowRange> subs;  // sub-chunks, relative to offset
};

struct RingContext {
  const Workload& w;
  const OverlapConfig& cfg;
  const OpScope& scope;
  std::vector<Direction> dirs;
  int p;
  int64_t mb;  // rows per block

  int SendLane(int d) const { return 1 + (2 * d) % cfg.comm_lanes; }
  int RecvLane(int d) const { return 1 + (2 * d + 1) % cfg.comm_lanes; }
  // One id per (phase, direction, sender, step, sub-chunk): both ends of a
  // transfer compute the same number.
  int64_t Match(int phase, int d, int sender, int s, int j) const {
    const int64_t c = int64_t(dirs[size_t(d)].subs.size());
    return ((((int64_t(phase) * 2 + d) * p + sender) * p + s) * c) + j;
  }
  // Rows of block `blk` carried by direction d, sub-chunk j.
  Region BlockRows(BufferId buf, int blk, int d, int j) const {
    const Direction& dir = dirs[size_t(d)];
    const RowRange s = dir.subs[size_t(j)];
    return Region::Rows(buf, int64_t(blk) * mb + dir.offset + s.begin, s.rows);
  }
};

// ag_gemm: at step s a rank multiplies block (r − sign·s) while passing it on.
void PlanAgRank(const RingContext& x, int r, RankPlan& rp) {
  RankBuilder rb(x.w, CommDType(x.w, x.cfg), &rp, &x.scope);
  const OpBuffers ob = AddOpBuffers(x.w, r, rb, rp);
  const int nd = int(x.dirs.size());
  std::vector<std::vector<int>> prev_recv(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) prev_recv[size_t(d)].assign(x.dirs[size_t(d)].subs.size(), -1);

  for (int s = 0; s < x.p; ++s) {
    std::vector<std::vector<int>> recv(static_cast<size_t>(nd));
    for (int d = 0; d < nd; ++d) {
      const int sign = x.dirs[size_t(d)].sign;
      const int blk = Mod(r - sign * s, x.p);
      const int nxt = Mod(r + sign, x.p), prv = Mod(r - sign, x.p);
      recv[size_t(d)].assign(x.dirs[size_t(d)].subs.size(), -1);
      if (s == x.p - 1) continue;
      for (int j = 0; j < int(x.dirs[size_t(d)].subs.size()); ++j) {
        rb.Send(x.SendLane(d), x.BlockRows(ob.a, blk, d, j), nxt, x.Match(0, d, r, s, j),
                Deps({prev_recv[size_t(d)][size_t(j)]}), j, s);
        recv[size_t(d)][size_t(j)] = rb.Recv(x.RecvLane(d), x.BlockRows(ob.a, Mod(r - sign * (s + 1), x.p), d, j), prv,
                                             x.Match(0, d, prv, s, j), {}, j, s);
      }
    }
    for (int j = 0; j < int(x.dirs[0].subs.size()); ++j) {
      for (int d = 0; d < nd; ++d) {
        const int blk = Mod(r - x.dirs[size_t(d)].sign * s, x.p);
        rb.Gemm(0, x.BlockRows(ob.a, blk, d, j), ob.b, x.BlockRows(ob.out, blk, d, j),
                Deps({prev_recv[size_t(d)][size_t(j)]}), j, s);
      }
    }
    prev_recv = std::move(recv);
  }
}

// gemm_rs / gemm_ar: at step s a rank computes the partial block for
// destination (r − sign·(s+1)), adds the accumulator from its predecessor and
// sends it on; the last step computes its own block.
void PlanReduceRank(const RingContext& x, int r, RankPlan& rp) {
  RankBuilder rb(x.w, CommDType(x.w, x.cfg), &rp, &x.scope);
  const OpBuffers ob = AddOpBuffers(x.w, r, rb, rp);
  const bool rs = x.w.op == Op::kGemmRs;
  const int nd = int(x.dirs.size());
  const int nsub = int(x.dirs[0].subs.size());
  // Output rows of the rank's own block: the whole C for gemm_rs, block r of C for gemm_ar.
  const int own_out_blk = rs ? 0 : r;
  if (x.p == 1) {
    for (int j = 0; j < nsub; ++j) {
      for (int d = 0; d < nd; ++d) {
        rb.Gemm(0, x.BlockRows(ob.a, 0, d, j), ob.b, x.BlockRows(ob.out, 0, d, j), {}, j, 0);
      }
    }
    return;
  }
  const BufferId work = rb.AddBuffer("partial", x.w.m, x.w.n, BufferRole::kWorkspace);
  const BufferId inbox = rb.AddBuffer("received", x.w.m, x.w.n, BufferRole::kWorkspace);
  std::vector<std::vector<int>> done(size_t(nd), std::vector<int>(size_t(nsub), -1));

  for (int s = 0; s < x.p; ++s) {
    const bool last = s == x.p - 1;
    for (int j = 0; j < nsub; ++j) {
      for (int d = 0; d < nd; ++d) {
        const int sign = x.dirs[size_t(d)].sign;
        const int dst = Mod(r - sign * (s + 1), x.p);
        const int nxt = Mod(r + sign, x.p), prv = Mod(r - sign, x.p);
        const Region part = x.BlockRows(work, dst, d, j);
        const int g = rb.Gemm(0, x.BlockRows(ob.a, dst, d, j), ob.b, part, {}, j, s);
        int ready = g;
        if (s > 0) {
          const Region in = x.BlockRows(inbox, dst, d, j);
          const int rv = rb.Recv(x.RecvLane(d), in, prv, x.Match(0, d, prv, s - 1, j), {}, j, s);
          const Region sum = last ? x.BlockRows(ob.out, own_out_blk, d, j) : part;
          ready = rb.Reduce(x.RecvLane(d), sum, part, in, {g, rv}, j, s);
        }
        if (!last) {
          rb.Send(x.SendLane(d), part, nxt, x.Match(0, d, r, s, j), {ready}, j, s);
        } else {
          done[size_t(d)][size_t(j)] = ready;
        }
      }
    }
  }
  if (rs) return;
  // gemm_ar: pass the finished blocks around the same rings (all-gather).
  std::vector<std::vector<int>> prev = done;
  for (int t = 0; t < x.p - 1; ++t) {
    for (int j = 0; j < nsub; ++j) {
      for (int d = 0; d < nd; ++d) {
        const int sign = x.dirs[size_t(d)].sign;
        const int nxt = Mod(r + sign, x.p), prv = Mod(r - sign, x.p);
        rb.Send(x.SendLane(d), x.BlockRows(ob.out, Mod(r - sign * t, x.p), d, j), nxt, x.Match(1, d, r, t, j),
                {prev[size_t(d)][size_t(j)]}, j, x.p + t);
        prev[size_t(d)][size_t(j)] = rb.Recv(x.RecvLane(d), x.BlockRows(ob.out, Mod(r - sign * (t + 1), x.p), d, j),
                                             prv, x.Match(1, d, prv, t, j), {}, j, x.p + t);
      }
    }
  }
}

}  // namespace

Status BuildRingPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope) {
  RingContext x{w, cfg, scope, {}, w.tp, w.m / w.tp};
  const bool bidir = cfg.algorithm == Algorithm::kBidirRing;
  const int64_t rows = bidir ? x.mb / 2 : x.mb;
  BRAID_ASSIGN_OR_RETURN(
      auto subs, SplitRows(rows, cfg.chunks, {}, bidir ? "rows per half block (M/P/2)" : "rows per rank block (M/P)",
                           /*weights_allowed=*/false));
  x.dirs.push_back({+1, 0, subs});
  if (bidir) x.dirs.push_back({-1, rows, subs});
  for (int r = 0; r < w.tp; ++r) {
    if (w.op == Op::kAgGemm) {
      PlanAgRank(x, r, plan.ranks[size_t(r)]);
    } else {
      PlanReduceRank(x, r, plan.ranks[size_t(r)]);
    }
  }
  return Status::Ok();
}

}  // namespace braid::detail
