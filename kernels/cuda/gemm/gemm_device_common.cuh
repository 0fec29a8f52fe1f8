// Device helpers both GEMM kernels use: fp32 → 16-bit output conversion and
// the clock their bounded waits read.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace braid::cuda::gemm {

// D: 0 bf16, 1 fp16. Two fp32 accumulators → one 4-byte pair, low element first.
template <int D>
__device__ __forceinline__ uint32_t PackOut(float lo, float hi) {
  if constexpr (D == 0) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

// %globaltimer in ns: what every bounded wait of the kernels measures.
__device__ __forceinline__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace braid::cuda::gemm
