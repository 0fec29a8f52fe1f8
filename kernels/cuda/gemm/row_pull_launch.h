// The launch of the row-pull kernel (row_pull.h; CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include "gemm/row_pull.h"

namespace braid::cuda::gemm {

// cudaErrorInvalidValue for ctas < 1, a negative count, or pulls / flags /
// done missing while count > 0. count 0 launches a kernel that does nothing
// (it loads the module before the first run).
cudaError_t LaunchRowPulls(const RowPullLaunch& p, int ctas, cudaStream_t s);

}  // namespace braid::cuda::gemm
