// What runs a plan's fused steps (--algo fused) on the GPU: the cuda
// backend's choice (CudaBackendOptions::fused_engine) and the kernel
// `calibrate --measure` times for the sim's fused figures
// (MeasurePlan::fused_engine), one name table for both.
#pragma once

#include "braid/name_table.h"

namespace braid {

enum class FusedEngine {
  // One persistent kernel over our task tables (braid/fused_schedule.h): a
  // 64x64 mma.sync tile loop beside pull and reduce CTAs. Run on an H100 and
  // an H200: correct, at 0.4-0.5 % of cuBLASLt's rate.
  kTasks,
  // The GEMM core (kernels/cuda/gemm: TMA + wgmma on sm_90a, cp.async +
  // mma.sync on sm_80): an all-gather GEMM's tiles wait for their rows'
  // arrival flag, a reduce-scatter GEMM's epilogue sends each tile to its
  // owner (issue 56 points 2 and 3); bf16, fp16, FP8 E4M3 on sm_90a. Never
  // run on a GPU yet.
  kCore,
};
inline constexpr NameTable<FusedEngine, 2> kFusedEngineNames{
    {{FusedEngine::kTasks, "tasks"}, {FusedEngine::kCore, "core"}}};
static_assert(IsOneToOne(kFusedEngineNames));

}  // namespace braid
