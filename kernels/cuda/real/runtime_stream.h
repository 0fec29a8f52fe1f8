// The seams' opaque stream handle (braid/cuda_api.h GpuStream) as the CUDA
// runtime's, for the real forwarders: one cast, written once.
#pragma once

#include <cuda_runtime.h>

#include "braid/cuda_api.h"

namespace braid::cuda {

inline cudaStream_t RuntimeStream(GpuStream s) { return reinterpret_cast<cudaStream_t>(s); }

}  // namespace braid::cuda
