// The fused probe's tables (braid/gpu_measure.h): the schedule's own tables
// for rank 0 of an ag_gemm, cut into the kernel's GEMM half and its transfer
// half, so that each is timed alone by the very kernel the backend runs.
#include <string>

#include "braid/gpu_measure.h"

namespace braid::measure {

namespace fused = cuda::fused;

fused::FusedShape FusedProbeShape(const GemmShape& s, int comm_sms, int ranks, int sm_count) {
  fused::FusedShape shape;
  shape.op = fused::FusedOp::kAgGemm;
  shape.ranks = ranks;
  shape.m = s.m;
  shape.n = s.n;
  shape.k = s.k;
  shape.comm_ctas = comm_sms;
  shape.compute_ctas = sm_count - comm_sms;
  return shape;
}

Result<fused::RankTables> FusedProbeTables(const GemmShape& s, int comm_sms, int ranks, int sm_count, FusedPart part) {
  const fused::FusedShape shape = FusedProbeShape(s, comm_sms, ranks, sm_count);
  if (Status st = fused::CheckFusedShape(shape, DType::kBf16, sm_count); !st.ok()) {
    return Status::Invalid(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " on " +
                           std::to_string(comm_sms) + " comm SMs: " + st.message());
  }
  const fused::RankTables all = fused::BuildRankTables(shape, 0);
  fused::RankTables out;
  out.comm_ctas = all.comm_ctas;
  const int ctas = part == FusedPart::kGemm ? all.ctas() : all.comm_ctas;
  for (int c = 0; c < ctas; ++c) {
    out.cta_begin.push_back(int32_t(out.tasks.size()));
    const bool comm = c < all.comm_ctas;
    if (comm == (part == FusedPart::kGemm)) continue;  // this half's CTAs only
    for (int32_t i = all.cta_begin[size_t(c)]; i < all.cta_begin[size_t(c) + 1]; ++i) {
      fused::FusedTask t = all.tasks[size_t(i)];
      t.wait_begin = t.wait_count = 0;
      t.sets = -1;
      out.tasks.push_back(t);
    }
  }
  out.cta_begin.push_back(int32_t(out.tasks.size()));
  return out;
}

int64_t FusedPulledBytes(const fused::RankTables& tables) {
  int64_t bytes = 0;
  for (const fused::FusedTask& t : tables.tasks) {
    if (t.kind == fused::kPullRows) bytes += int64_t(t.rows) * int64_t(t.cols) * 2;
  }
  return bytes;
}

}  // namespace braid::measure
