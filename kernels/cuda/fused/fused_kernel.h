// Host entry of the fused P2P+GEMM kernel (fused_kernel.cu).
#pragma once

#include <cuda_runtime_api.h>

#include "braid/fused_tables.h"

namespace braid::cuda::fused {

// CTAs of the kernel the current device holds at once: the most a launch may
// use, since waiting CTAs must not keep the ones they wait for off the GPU.
cudaError_t FusedKernelCapacity(int dtype, int* ctas);

// Enqueues one rank's persistent kernel: launch.ctas CTAs of kThreads threads.
cudaError_t LaunchFusedKernel(const FusedLaunch& launch, cudaStream_t s);

}  // namespace braid::cuda::fused
