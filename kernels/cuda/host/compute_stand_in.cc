#include "braid/compute_stand_in.h"

#include <algorithm>
#include <cmath>

namespace braid::cuda {

namespace {

constexpr int64_t kAlign = 16;
// Below this k a GEMM is more launch and epilogue than math: shrink m and n
// instead.
constexpr int64_t kMinK = 256;

int64_t RoundTo16(double v) { return std::max<int64_t>(kAlign, int64_t(std::llround(v / double(kAlign))) * kAlign); }

}  // namespace

ComputeStandIn StandInFor(double flops) {
  ComputeStandIn s;
  if (!(flops > 0)) return s;  // also NaN
  const double dim = double(kStandInMaxDim);
  const double full = 2.0 * dim * dim * double(kStandInMaxK);
  if (flops >= 2.0 * dim * dim * double(kMinK)) {
    // Largest m and n; as many GEMMs as k ≤ kStandInMaxK needs, k shared out
    // evenly (each at least half of kStandInMaxK once there are two).
    s.m = s.n = kStandInMaxDim;
    // Capped so that the cast stays defined (no plan's step comes near: a
    // 10^15-launch step would never finish anyway).
    s.count = int64_t(std::min(std::ceil(flops / full), 1e15));
    s.k = RoundTo16(std::min(flops / (2.0 * dim * dim * double(s.count)), double(kStandInMaxK)));
    return s;
  }
  // One GEMM of k = kMinK and m = n below kStandInMaxDim; the smallest steps
  // one 16³.
  s.count = 1;
  s.m = s.n = std::min(kStandInMaxDim, RoundTo16(std::sqrt(flops / (2.0 * double(kMinK)))));
  s.k = std::clamp<int64_t>(RoundTo16(flops / (2.0 * double(s.m) * double(s.n))), kAlign, kStandInMaxK);
  return s;
}

}  // namespace braid::cuda
