// Device side of ArrivalWait (arrival_wait.h), shared by both GEMM kernels.
#pragma once

#include <cstdint>

#include "gemm/arrival_wait.h"
#include "gemm/gemm_device_common.cuh"

namespace braid::cuda::gemm {

// The linear index of the i-th tile this launch hands out.
__device__ __forceinline__ int64_t TileToRun(const ArrivalWait& w, int64_t i) {
  return w.order != nullptr ? w.order[i] : i;
}

__device__ __forceinline__ uint32_t LoadAcquireSys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One thread: returns once the rows of the i-th tile are here (at once for
// the plain GEMM or a tile of the rank's own block). A step that never
// arrives: 1 + step into *timed_out (system scope), then trap, so the launch
// fails instead of hanging and the host learns which step it was.
__device__ __forceinline__ void WaitForRows(const ArrivalWait& w, int64_t i) {
  if (w.order == nullptr) return;
  const int step = w.step[i];
  if (step <= 0) return;
  const uint64_t start = GlobalTimerNs();
  while (LoadAcquireSys(w.flags + step) < w.epoch) {
    if (GlobalTimerNs() - start > w.timeout_ns) {
      if (w.timed_out != nullptr) {
        asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(w.timed_out), "r"(uint32_t(step) + 1u) : "memory");
        __threadfence_system();
      }
      __trap();
    }
    __nanosleep(64);
  }
}

}  // namespace braid::cuda::gemm
