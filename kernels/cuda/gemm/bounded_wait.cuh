// The one bounded wait of the GEMM core's device code: a flag or counter
// read with acquire at system scope (copy engines and other GPUs write
// them) until it reaches a target, or a trap after a timeout. Shared by the
// all-gather tiles' wait for their rows (arrival_wait.cuh) and the
// reduce-scatter's wait for every source's partial (partial_reduce.cu).
#pragma once

#include <cstdint>

#include "gemm/gemm_device_common.cuh"

namespace braid::cuda::gemm {

__device__ __forceinline__ uint32_t LoadAcquireSys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One thread: returns once *flag >= target. Past timeout_ns from the
// wait's start, `record` is written to *timed_out (host-mapped memory, as
// device memory is lost with the context once the kernel traps; null: no
// record) and the kernel traps, so the launch fails instead of hanging and
// the host reads what never came.
__device__ __forceinline__ void WaitAtLeast(const uint32_t* flag, uint32_t target, uint64_t timeout_ns,
                                            uint32_t* timed_out, uint32_t record) {
  const uint64_t start = GlobalTimerNs();
  while (LoadAcquireSys(flag) < target) {
    if (GlobalTimerNs() - start > timeout_ns) {
      if (timed_out != nullptr) {
        asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(timed_out), "r"(record) : "memory");
        __threadfence_system();
      }
      __trap();
    }
    __nanosleep(64);
  }
}

}  // namespace braid::cuda::gemm
