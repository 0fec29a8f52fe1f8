// fused: one persistent kernel per rank (StepKind::kFused) that moves tiles
// to peers on some SMs and computes GEMM tiles on the rest.
#include "plan_builder.h"

namespace braid::detail {

Status BuildFusedPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope) {
  // comm_sms is the backend's knob; chunks is 1 (Validate).
  if (w.op == Op::kGemmAr) return Status::Invalid("fused does not apply to gemm_ar");
  const int p = w.tp;
  const int64_t mb = w.m / p;
  for (int r = 0; r < p; ++r) {
    RankPlan& rp = plan.ranks[size_t(r)];
    RankBuilder rb(w, CommDType(w, cfg), &rp, &scope);
    const OpBuffers ob = AddOpBuffers(w, r, rb, rp);
    if (p == 1) {
      rb.Gemm(0, rb.Whole(ob.a), ob.b, rb.Whole(ob.out), {}, 0, -1);
      continue;
    }
    if (w.op == Op::kAgGemm) {
      rb.Fused(0, CollectiveKind::kAllGather, Region::Rows(ob.a, r * mb, mb), ob.b, rb.Whole(ob.out), 0, {});
    } else {
      rb.Fused(0, CollectiveKind::kReduceScatter, rb.Whole(ob.a), ob.b, rb.Whole(ob.out), 0, {});
    }
  }
  return Status::Ok();
}

}  // namespace braid::detail
