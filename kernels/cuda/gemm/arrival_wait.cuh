// Device side of ArrivalWait (arrival_wait.h), shared by both GEMM kernels.
#pragma once

#include <cstdint>

#include "gemm/arrival_wait.h"
#include "gemm/bounded_wait.cuh"
#include "gemm/tile_times.cuh"

namespace braid::cuda::gemm {

// The linear index of the i-th tile this launch hands out.
__device__ __forceinline__ int64_t TileToRun(const ArrivalWait& w, int64_t i) {
  return w.order != nullptr ? w.order[i] : i;
}

// One thread: returns once the rows of the i-th tile are here (at once for
// an order without flags, e.g. a reduce-scatter's, or a tile of the rank's
// own block). A step that never arrives: 1 + step into *timed_out, then
// trap (WaitAtLeast), so the host learns which step it was.
__device__ __forceinline__ void WaitForRows(const ArrivalWait& w, int64_t i) {
  if (w.flags == nullptr) return;
  const int step = w.step[i];
  if (step <= 0) return;
  WaitAtLeast(w.flags + step, w.epoch, w.timeout_ns, w.timed_out, uint32_t(step) + 1u);
}

}  // namespace braid::cuda::gemm
