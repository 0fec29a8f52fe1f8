// One checking macro for CUPTI calls: turns a failing CUptiResult into a
// Status that names the call, CUPTI's text for the error and where it
// happened, like BRAID_CUDA_STATUS does for the runtime.
#pragma once

#include <cupti_result.h>

#include <string>

#include "braid/status.h"

namespace braid {

// "CALL failed: CUPTI_ERROR_X (N) (FILE:LINE)". Missing driver or GPU,
// unsupported or forbidden profiling map to kUnavailable; the rest (bad
// parameters, internal CUPTI failures) to kInternal.
Status CuptiError(const char* call, CUptiResult result, const char* file, int line);

}  // namespace braid

#define BRAID_CUPTI_STATUS(call)                                              \
  ([&]() -> ::braid::Status {                                                 \
    const CUptiResult braid_r_ = (call);                                      \
    if (braid_r_ == CUPTI_SUCCESS) return ::braid::Status::Ok();              \
    return ::braid::CuptiError(#call, braid_r_, BRAID_SOURCE_FILE, __LINE__); \
  }())
