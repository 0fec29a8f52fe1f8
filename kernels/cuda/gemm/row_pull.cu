// The row-pull kernel (row_pull.h): a few CTAs copy the arriving blocks of
// A from their owners and raise each block's arrival flag.
#include <cstdint>

#include "gemm/row_pull_launch.h"

namespace braid::cuda::gemm {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ void StoreReleaseSys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// 16 bytes through the plain global path (the generic ld would also do, but
// the PTX check wants to see that the copy never takes the read-only .nc
// path, which would not be ordered after this run's writes in loopback).
__device__ __forceinline__ void Copy16(uint4* dst, const uint4* src) {
  uint4 v;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(__cvta_generic_to_global(src))
               : "memory");
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(dst)), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}

__global__ void __launch_bounds__(kThreads) RowPullKernel(const RowPullLaunch p) {
  __shared__ uint32_t last;
  const int64_t ctas = gridDim.x;
  for (int i = 0; i < p.count; ++i) {
    const RowPull pull = p.pulls[i];
    // This CTA's slice: 16-byte units, contiguous, the remainder spread
    // over the first CTAs.
    const int64_t units = pull.bytes / 16, per = units / ctas, extra = units % ctas, c = blockIdx.x;
    const int64_t begin = c * per + (c < extra ? c : extra), count = per + (c < extra ? 1 : 0);
    const uint4* src = static_cast<const uint4*>(pull.src) + begin;
    uint4* dst = static_cast<uint4*>(pull.dst) + begin;
    // Plain loads, not the read-only path: the source is another GPU's
    // memory (or, in loopback, memory another kernel wrote this run).
    for (int64_t u = threadIdx.x; u < count; u += kThreads) Copy16(dst + u, src + u);
    // Every thread's stores, then thread 0 publishes them: the fence makes
    // this CTA's slice visible before its count (the classic last-block
    // pattern), and the last CTA raises the flag after its own fence.
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      const uint32_t before = atomicAdd(p.done + i, 1u);
      last = before + 1u == p.epoch * uint32_t(ctas) ? 1u : 0u;
      if (last != 0u && pull.flag != p.never_set_flag) {
        __threadfence_system();
        StoreReleaseSys(p.flags + pull.flag, p.epoch);
      }
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t LaunchRowPulls(const RowPullLaunch& p, int ctas, cudaStream_t s) {
  if (ctas < 1 || p.count < 0) return cudaErrorInvalidValue;
  if (p.count > 0 && (p.pulls == nullptr || p.flags == nullptr || p.done == nullptr)) return cudaErrorInvalidValue;
  RowPullKernel<<<unsigned(ctas), kThreads, 0, s>>>(p);
  return cudaGetLastError();
}

}  // namespace braid::cuda::gemm
