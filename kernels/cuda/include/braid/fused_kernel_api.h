// Launching the fused P2P+GEMM kernel, behind one interface: the real one
// (kernels/cuda/fused/fused_kernel.cu) runs it on the GPU, the fake
// (braid/cuda_fakes.h) executes the same tables on host memory with the same
// flag rules.
#pragma once

#include <cstdint>

#include "braid/cuda_api.h"
#include "braid/fused_tables.h"

namespace braid::cuda {

using fused::FusedLaunch;

class FusedKernelApi {
 public:
  virtual ~FusedKernelApi() = default;
  // Enqueues the kernel on `s` (the current device).
  virtual Status Launch(const FusedLaunch& launch, GpuStream s) = 0;
};

}  // namespace braid::cuda
