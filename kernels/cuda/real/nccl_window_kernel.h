// Host entry of the one-thread kernel that asks NCCL's device API where every
// rank's copy of a symmetric window lives (nccl_window_kernel.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace braid::cuda {

// out_host[q] = rank q's base of `window` (an ncclWindow_t) as the current
// device addresses it, q < nranks; null for a rank this device cannot map
// (see the .cu). Synchronous.
cudaError_t FetchWindowPeerPointers(void* window, int nranks, void** out_host);

}  // namespace braid::cuda
