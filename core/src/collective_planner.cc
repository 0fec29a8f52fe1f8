// serial and chunked: whole NCCL-style collectives on comm lanes, one per
// chunk, each ordered against its chunk's GEMM.
#include "plan_builder.h"
#include "row_split.h"

namespace braid::detail {

namespace {

// Rows one chunk covers, and the region of a full-M buffer they form.
// ag_gemm / gemm_rs: slice `s` of every rank block (P pieces, stride M/P).
// gemm_ar: rows `s` of M (one piece).
Region ChunkRegion(const Workload& w, BufferId buf, RowRange s) {
  if (w.op == Op::kGemmAr) return Region::Rows(buf, s.begin, s.rows);
  const int64_t mb = w.m / w.tp;
  return Region{buf, s.begin, s.rows, w.tp, mb};
}

void PlanRank(const Workload& w, const OverlapConfig& cfg, const std::vector<RowRange>& slices, int r, RankPlan& rp,
              const OpScope& scope) {
  RankBuilder rb(w, CommDType(w, cfg), &rp, &scope);
  const OpBuffers ob = AddOpBuffers(w, r, rb, rp);
  const int p = w.tp;
  const int64_t mb = w.m / p;
  const bool single = p == 1;
  BufferId work = -1;
  if (w.op != Op::kAgGemm && !single) work = rb.AddBuffer("partial", w.m, w.n, BufferRole::kWorkspace);

  for (int i = 0; i < int(slices.size()); ++i) {
    const RowRange s = slices[size_t(i)];
    const int comm_lane = 1 + (i + scope.comm_lane_shift) % cfg.comm_lanes;
    switch (w.op) {
      case Op::kAgGemm: {
        int ag = -1;
        if (!single) {
          ag = rb.Collective(comm_lane, CollectiveKind::kAllGather, Region::Rows(ob.a, r * mb + s.begin, s.rows),
                             ChunkRegion(w, ob.a, s), i, {}, i);
        }
        rb.Gemm(0, ChunkRegion(w, ob.a, s), ob.b, ChunkRegion(w, ob.out, s), Deps({ag}), i, -1);
        break;
      }
      case Op::kGemmRs: {
        if (single) {
          rb.Gemm(0, ChunkRegion(w, ob.a, s), ob.b, ChunkRegion(w, ob.out, s), {}, i, -1);
          break;
        }
        const int g = rb.Gemm(0, ChunkRegion(w, ob.a, s), ob.b, ChunkRegion(w, work, s), {}, i, -1);
        rb.Collective(comm_lane, CollectiveKind::kReduceScatter, ChunkRegion(w, work, s),
                      Region::Rows(ob.out, s.begin, s.rows), i, {g}, i);
        break;
      }
      case Op::kGemmAr: {
        if (single) {
          rb.Gemm(0, ChunkRegion(w, ob.a, s), ob.b, ChunkRegion(w, ob.out, s), {}, i, -1);
          break;
        }
        const int g = rb.Gemm(0, ChunkRegion(w, ob.a, s), ob.b, ChunkRegion(w, work, s), {}, i, -1);
        rb.Collective(comm_lane, CollectiveKind::kAllReduce, ChunkRegion(w, work, s), ChunkRegion(w, ob.out, s), i, {g},
                      i);
        break;
      }
    }
  }
}

}  // namespace

Status BuildCollectivePlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope) {
  // Here too, not only in Validate: bulk emits its pair as serial collectives.
  BRAID_RETURN_IF_ERROR(CheckCommDType(w, cfg, cfg.algorithm));
  const int64_t rows = w.op == Op::kGemmAr ? w.m : w.m / w.tp;
  BRAID_ASSIGN_OR_RETURN(auto slices, SplitRows(rows, cfg.chunks, cfg.splits,
                                                w.op == Op::kGemmAr ? "rows of M" : "rows per rank block (M/P)"));
  for (int r = 0; r < w.tp; ++r) PlanRank(w, cfg, slices, r, plan.ranks[size_t(r)], scope);
  return Status::Ok();
}

}  // namespace braid::detail
