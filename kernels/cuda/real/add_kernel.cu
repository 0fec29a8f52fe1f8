// The small add kernel of reduce steps and flag-transport reductions:
// c = a + b elementwise in the workload's dtype, accumulated in fp32.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "real/add_kernel.h"

namespace braid::cuda {

namespace {

__device__ float Load(const float* p, size_t i) { return p[i]; }
__device__ float Load(const __half* p, size_t i) { return __half2float(p[i]); }
__device__ float Load(const __nv_bfloat16* p, size_t i) { return __bfloat162float(p[i]); }
__device__ void Store(float* p, size_t i, float v) { p[i] = v; }
__device__ void Store(__half* p, size_t i, float v) { p[i] = __float2half_rn(v); }
__device__ void Store(__nv_bfloat16* p, size_t i, float v) { p[i] = __float2bfloat16_rn(v); }

template <typename T>
__global__ void AddKernel(T* c, const T* a, const T* b, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Store(c, i, Load(a, i) + Load(b, i));
  }
}

template <typename T>
cudaError_t Launch(void* c, const void* a, const void* b, size_t n, cudaStream_t s) {
  constexpr int kThreads = 256;
  const size_t blocks = (n + kThreads - 1) / kThreads;
  const unsigned grid = unsigned(blocks < 4096 ? blocks : 4096);
  AddKernel<T><<<grid, kThreads, 0, s>>>(static_cast<T*>(c), static_cast<const T*>(a), static_cast<const T*>(b), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchAdd(void* c, const void* a, const void* b, size_t n, int dtype, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  switch (dtype) {
    case kAddFp32:
      return Launch<float>(c, a, b, n, s);
    case kAddFp16:
      return Launch<__half>(c, a, b, n, s);
    default:
      return Launch<__nv_bfloat16>(c, a, b, n, s);
  }
}

}  // namespace braid::cuda
