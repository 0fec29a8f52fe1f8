// The GEMM core as one call on the current device (CUDA builds only):
// c = a·b with the kernel of the device's architecture, optionally as one
// rank of an all-gather GEMM (tiles wait for their rows: arrival_wait.h) or
// of a reduce-scatter GEMM (each finished tile goes to its owner's receive
// slot and raises the owner's counter: scatter_epilogue.h; the owner sums
// them with LaunchPartialReduce, partial_reduce.h). Used by
// braid_gemm_bench; the fused plans do not call it yet (issue 56 points 2-3).
#pragma once

#include <cuda_runtime_api.h>

#include "braid/status.h"
#include "gemm/arrival_wait.h"
#include "gemm/gemm_plan.h"
#include "gemm/scatter_epilogue.h"

namespace braid::cuda::gemm {

// The current device's architecture, SM count and shared-memory opt-in
// limit; kUnavailable without a GPU or for an architecture without a kernel.
Result<GemmDevice> CurrentGemmDevice();

// Plans (refusing what cannot be tiled, with the constraint's name), encodes
// the TMA maps on sm_90a, and enqueues the launch on `s`. a, b, c: device
// memory as GemmProblem describes, 16-byte aligned. `wait`: an all-gather
// GEMM's tile order and flags (arrival_wait.h; built from this problem's
// PlanGemm scheduler), or the plain GEMM. `scatter` (ranks > 0): a
// reduce-scatter GEMM's epilogue, checked by CheckScatterEpilogue
// (scatter_tables.h) against the plan's scheduler; c is then unused (may be
// null), and the tiles go out in wait.order, which should be
// ScatterTables.order with wait.step and wait.flags null (null order: the
// scheduler's, correct but without the owners' stagger).
// FP8 E4M3 (sm_90a): b is bᵀ (n × k) and `scales` must hold both per-tensor
// scales (device fp32 scalars).
Status RunGemm(const GemmProblem& problem, const GemmDevice& device, const void* a, const void* b, void* c,
               cudaStream_t s, const ArrivalWait& wait = {}, const ScatterEpilogue& scatter = {},
               const Fp8Scales& scales = {});

}  // namespace braid::cuda::gemm
