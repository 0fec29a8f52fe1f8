// One checking macro for CUDA runtime calls: turns a failure into a Status
// that names the call, the error and where it happened.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "braid/status.h"

#define BRAID_CUDA_STATUS(call)                                                                           \
  ([&]() -> ::braid::Status {                                                                             \
    const cudaError_t braid_e_ = (call);                                                                  \
    if (braid_e_ == cudaSuccess) return ::braid::Status::Ok();                                            \
    return ::braid::Status::Unavailable(std::string(#call) + " failed: " + cudaGetErrorString(braid_e_) + \
                                        " (" BRAID_SOURCE_FILE ":" + std::to_string(__LINE__) + ")");     \
  }())
