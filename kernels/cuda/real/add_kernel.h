// Host entry of the add kernel (add_kernel.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace braid::cuda {

enum : int { kAddBf16 = 0, kAddFp16 = 1, kAddFp32 = 2 };

cudaError_t LaunchAdd(void* c, const void* a, const void* b, size_t n, int dtype, cudaStream_t s);

}  // namespace braid::cuda
