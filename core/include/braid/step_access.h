// Which regions a step reads and writes, and row arithmetic on regions:
// shared by the plan checker's structure, execution and race checks and by
// the cpu backend's choice of in-place sends.
#pragma once

#include <cstdint>

#include "braid/plan.h"

namespace braid {

// A gemm (and a fused step) also reads `b`, the whole B buffer.
inline bool Reads(StepKind k, char which) {
  switch (k) {
    case StepKind::kGemm:
      return which == 'a' || which == 'b';
    case StepKind::kSend:
      return which == 'a';
    case StepKind::kRecv:
      return false;
    case StepKind::kReduce:
      return which == 'a' || which == 'b';
    case StepKind::kCopy:
      return which == 'a';
    case StepKind::kCollective:
      return which == 'a';
    case StepKind::kCompute:
      return false;
    case StepKind::kFused:
      return which == 'a' || which == 'b';
  }
  return false;
}
inline bool Writes(StepKind k, char which) { return which == 'c' && k != StepKind::kSend && k != StepKind::kCompute; }
inline bool Uses(StepKind k, char which) { return Reads(k, which) || Writes(k, which); }

inline const Region& RegionOf(const Step& s, char which) { return which == 'a' ? s.a : which == 'b' ? s.b : s.c; }

// @pre g.buffer names one of rp's buffers (CheckPlanStructure's region check).
inline int64_t Cols(const RankPlan& rp, const Region& g) { return rp.buffers[size_t(g.buffer)].cols; }
inline int64_t Elements(const RankPlan& rp, const Region& g) { return g.total_rows() * Cols(rp, g); }

// Calls f(i, row) for the i-th row of the region, in piece order.
template <typename F>
void ForRows(const Region& g, F&& f) {
  int64_t i = 0;
  for (int p = 0; p < g.pieces; ++p) {
    const int64_t base = g.piece_row(p);
    for (int64_t k = 0; k < g.rows; ++k) f(i++, base + k);
  }
}

}  // namespace braid
