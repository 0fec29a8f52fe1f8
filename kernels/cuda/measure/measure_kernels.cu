// The kernels of `braid calibrate --measure` (measure_kernels.h): SM holders
// (spinning or copying), an SM-count-limited copy, a timer stamp and a fill.
#include <cuda_bf16.h>

#include "measure/measure_kernels.h"

namespace braid::measure {

namespace {

constexpr int kThreads = 1024;

__device__ uint64_t GlobalNs() {
  uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void __launch_bounds__(kThreads)
    HolderKernel(unsigned* started, const volatile unsigned* release, unsigned generation, bool copy, int4* dst,
                 const int4* src, size_t n16, uint64_t timeout_ns) {
  // The launch's dynamic shared memory is never touched: it only keeps other CTAs off this SM.
  __shared__ int stop;
  if (threadIdx.x == 0) {
    atomicAdd(started, 1u);
    __threadfence_system();
    stop = 0;
  }
  __syncthreads();
  const uint64_t t0 = GlobalNs();
  while (!stop) {
    if (copy) {
      for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n16; i += size_t(gridDim.x) * kThreads) {
        dst[i] = src[i];
      }
    } else {
      const long long until = clock64() + 2000;
      while (clock64() < until) {
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) stop = *release >= generation || GlobalNs() - t0 > timeout_ns;
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kThreads) SmCopyKernel(int4* dst, const int4* src, size_t n16) {
  for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n16; i += size_t(gridDim.x) * kThreads) {
    dst[i] = src[i];
  }
}

__global__ void StampKernel(uint64_t* slot) { *slot = GlobalNs(); }

__global__ void FillKernel(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = __float2bfloat16(float(h & 0xffff) / 32768.0f - 1.0f);
  }
}

}  // namespace

cudaError_t AllowMeasureSharedMemory(int smem_bytes) {
  cudaError_t e = cudaFuncSetAttribute(HolderKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  if (e == cudaSuccess) {
    e = cudaFuncSetAttribute(SmCopyKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  }
  return e;
}

cudaError_t LaunchHolder(int ctas, int smem_bytes, unsigned* started, const unsigned* release, unsigned generation,
                         bool copy, void* dst, const void* src, size_t n16, uint64_t timeout_ns, cudaStream_t s) {
  HolderKernel<<<ctas, kThreads, size_t(smem_bytes), s>>>(started, release, generation, copy, static_cast<int4*>(dst),
                                                          static_cast<const int4*>(src), n16, timeout_ns);
  return cudaGetLastError();
}

cudaError_t LaunchSmCopy(int sms, int smem_bytes, void* dst, const void* src, size_t n16, cudaStream_t s) {
  SmCopyKernel<<<sms, kThreads, size_t(smem_bytes), s>>>(static_cast<int4*>(dst), static_cast<const int4*>(src), n16);
  return cudaGetLastError();
}

cudaError_t LaunchStamp(uint64_t* slot, cudaStream_t s) {
  StampKernel<<<1, 1, 0, s>>>(slot);
  return cudaGetLastError();
}

cudaError_t LaunchFillBf16(void* p, size_t n, unsigned seed, cudaStream_t s) {
  FillKernel<<<1024, 256, 0, s>>>(static_cast<__nv_bfloat16*>(p), n, seed);
  return cudaGetLastError();
}

}  // namespace braid::measure
