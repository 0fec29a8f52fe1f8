// Host entries of the GEMM core's kernels (CUDA builds only): each enqueues
// one persistent launch of a GemmPlan made by PlanGemm for its architecture.
// The caller (gemm_run.cc) has checked the plan; these only launch.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: libcuda is not linked)
#include <cuda_runtime_api.h>

#include "gemm/arrival_wait.h"
#include "gemm/gemm_plan.h"
#include "gemm/scatter_epilogue.h"

namespace braid::cuda::gemm {

// `wait`: an all-gather GEMM's arrival order and flags (arrival_wait.h);
// `scatter`: a reduce-scatter GEMM's epilogue (scatter_epilogue.h; c is
// then not written). The defaults are the plain GEMM.
// sm_80 path (gemm_sm80.cu): a, b, c device pointers as GemmProblem describes.
cudaError_t LaunchGemmSm80(const GemmPlan& plan, const void* a, const void* b, void* c, cudaStream_t s,
                           const ArrivalWait& wait = {}, const ScatterEpilogue& scatter = {});

// sm_90a path (gemm_sm90.cu): A and B through their TMA maps (tma_encode.h);
// `scales`: an FP8 E4M3 plan's (both set; RunGemm checks).
cudaError_t LaunchGemmSm90(const GemmPlan& plan, const CUtensorMap& a, const CUtensorMap& b, void* c, cudaStream_t s,
                           const ArrivalWait& wait = {}, const ScatterEpilogue& scatter = {},
                           const Fp8Scales& scales = {});

}  // namespace braid::cuda::gemm
