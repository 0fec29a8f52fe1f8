// One checking macro for CUDA runtime calls: turns a failure into a Status
// that names the call, the error and where it happened (kUnavailable when the
// error means no device or driver, else kInternal), and clears the runtime's
// last error so the next launch check does not report it again
// (braid/cuda_call_status.h).
#pragma once

#include <cuda_runtime_api.h>

#include "braid/cuda_call_status.h"
#include "braid/status.h"

namespace braid::cuda {

// The CUDA runtime as CudaCallStatus sees it.
struct CudaRuntimeErrors {
  int GetLastError() { return int(cudaGetLastError()); }
  const char* ErrorString(int e) { return cudaGetErrorString(cudaError_t(e)); }
  // Errors that mean this machine has no usable GPU or driver, whenever they come.
  bool MeansNoDevice(int e) {
    switch (cudaError_t(e)) {
      case cudaErrorNoDevice:
      case cudaErrorInsufficientDriver:
      case cudaErrorStubLibrary:
      case cudaErrorCallRequiresNewerDriver:
      case cudaErrorSystemDriverMismatch:
      case cudaErrorSystemNotReady:
      case cudaErrorDevicesUnavailable:
        return true;
      default:
        return false;
    }
  }
};

}  // namespace braid::cuda

#define BRAID_CUDA_STATUS(call)                                                                     \
  ([&]() -> ::braid::Status {                                                                       \
    ::braid::cuda::CudaRuntimeErrors braid_rt_;                                                     \
    return ::braid::cuda::CudaCallStatus(braid_rt_, int(call), #call, BRAID_SOURCE_FILE, __LINE__); \
  }())
