// TMA tensor maps made by the CUDA driver's cuTensorMapEncodeTiled, reached
// through the runtime (cudaGetDriverEntryPointByVersion) as
// real/real_cuda_api.cc reaches the driver: braid does not link libcuda.
#pragma once

#include <cuda.h>

#include "braid/status.h"
#include "braid/workload.h"
#include "gemm/tma_params.h"

namespace braid::cuda::gemm {

// The map of `p` over the matrix at device address `base`, 2-byte elements of
// `dtype` (bf16 or fp16), zero fill out of bounds, into *map. Checks
// CheckTmaParams and CheckTmaAddress first; kUnavailable when the driver
// lacks the entry point. (An out-parameter: CUtensorMap is 64-byte aligned,
// which a by-value Result would carry through every return.)
Status EncodeTensorMap(const TmaTensorMapParams& p, const void* base, DType dtype, CUtensorMap* map);

}  // namespace braid::cuda::gemm
