// The GEMM core as one call on the current device (CUDA builds only):
// c = a·b with the kernel of the device's architecture. Used by
// braid_gemm_bench; the fused plans do not call it yet (issue 56 points 2-3).
#pragma once

#include <cuda_runtime_api.h>

#include "braid/status.h"
#include "gemm/arrival_wait.h"
#include "gemm/gemm_plan.h"

namespace braid::cuda::gemm {

// The current device's architecture, SM count and shared-memory opt-in
// limit; kUnavailable without a GPU or for an architecture without a kernel.
Result<GemmDevice> CurrentGemmDevice();

// Plans (refusing what cannot be tiled, with the constraint's name), encodes
// the TMA maps on sm_90a, and enqueues the launch on `s`. a, b, c: device
// memory as GemmProblem describes, 16-byte aligned. `wait`: an all-gather
// GEMM's tile order and flags (arrival_wait.h; built from this problem's
// PlanGemm scheduler), or the plain GEMM.
Status RunGemm(const GemmProblem& problem, const GemmDevice& device, const void* a, const void* b, void* c,
               cudaStream_t s, const ArrivalWait& wait = {});

}  // namespace braid::cuda::gemm
