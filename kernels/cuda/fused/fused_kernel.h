// Host entry of the fused P2P+GEMM kernel (fused_kernel.cu).
#pragma once

#include <cuda_runtime_api.h>

#include "braid/fused_tables.h"

namespace braid::cuda::fused {

// Enqueues one rank's persistent kernel: launch.ctas CTAs of kThreads threads.
cudaError_t LaunchFusedKernel(const FusedLaunch& launch, cudaStream_t s);

}  // namespace braid::cuda::fused
