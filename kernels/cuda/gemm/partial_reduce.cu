// The owner's reduction of a reduce-scatter GEMM: partial_reduce.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "gemm/bounded_wait.cuh"
#include "gemm/gemm_device_common.cuh"
#include "gemm/partial_reduce.h"

namespace braid::cuda::gemm {

namespace {

constexpr int kThreads = 256;

// 16 bytes of a slot. Not through the read-only (.nc) path, which the
// memory model does not cover: peers wrote these during the GEMM, and only
// the acquire on the counter (and the barrier after it) orders this load
// after their stores.
__device__ __forceinline__ uint4 LoadSlot16(const uint16_t* p) {
  uint4 v;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

// D: 0 bf16, 1 fp16. Adds one 4-byte pair, low element first, to sum[0..1].
template <int D>
__device__ __forceinline__ void AddPair(float* sum, uint32_t w) {
  float2 f;
  if constexpr (D == 0) {
    f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&w));
  } else {
    f = __half22float2(*reinterpret_cast<const __half2*>(&w));
  }
  sum[0] += f.x;
  sum[1] += f.y;
}

template <int D>
__global__ void __launch_bounds__(kThreads) PartialReduceKernel(PartialReduce r) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  const TileScheduler block = ReduceScheduler(r);
  const uint16_t* slots = static_cast<const uint16_t*>(r.slots);
  uint16_t* out = static_cast<uint16_t*>(r.out);
  const int64_t slot_elems = r.block_rows * r.n;
  const uint32_t target = r.epoch * uint32_t(r.ranks);  // every source's add of every run so far
  for (int64_t k = blockIdx.x; k < block.total(); k += gridDim.x) {
    const TileCoord tile = block.TileAt(k);
    const int64_t counter = ReduceCounter(block, tile);
    // One thread waits for the last source; the barrier orders every
    // thread's loads below after that acquire.
    if (threadIdx.x == 0) WaitAtLeast(r.counters + counter, target, r.timeout_ns, r.timed_out, uint32_t(counter) + 1u);
    __syncthreads();
    const int pieces = int(ReducePieces(tile));  // at most a tile: 128·128/8
    for (int v = int(threadIdx.x); v < pieces; v += kThreads) {
      const int64_t e = ReducePieceOffset(tile, r.n, v);
      float sum[8] = {};
      for (int s = 0; s < r.ranks; ++s) {
        const uint4 w = LoadSlot16(slots + int64_t(s) * slot_elems + e);
        AddPair<D>(sum + 0, w.x);
        AddPair<D>(sum + 2, w.y);
        AddPair<D>(sum + 4, w.z);
        AddPair<D>(sum + 6, w.w);
      }
      const uint4 o{PackOut<D>(sum[0], sum[1]), PackOut<D>(sum[2], sum[3]), PackOut<D>(sum[4], sum[5]),
                    PackOut<D>(sum[6], sum[7])};
      *reinterpret_cast<uint4*>(out + e) = o;
    }
    // No barrier here: thread 0 may start waiting for the next tile while
    // the others finish this one; the barrier after that wait gathers them.
  }
#else
  (void)r;
#endif
}

}  // namespace

cudaError_t LaunchPartialReduce(const PartialReduce& r, int ctas, cudaStream_t s) {
  if (ctas < 1 || !CheckPartialReduce(r).ok()) return cudaErrorInvalidValue;
  auto kernel = r.dtype == 0 ? PartialReduceKernel<0> : PartialReduceKernel<1>;
  kernel<<<ctas, kThreads, 0, s>>>(r);
  return cudaGetLastError();
}

}  // namespace braid::cuda::gemm
