#include "braid/cupti_check.h"

namespace braid {
namespace {

// Failures that mean "CUPTI tracing is not possible here" rather than a bug.
bool MeansUnavailable(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_UNKNOWN:  // what CUPTI 13 returns without a driver
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE:
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return true;
    default:
      return false;
  }
}

}  // namespace

Status CuptiError(const char* call, CUptiResult result, const char* file, int line) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    text = "unknown CUPTI error";
  }
  std::string msg = std::string(call) + " failed: " + text + " (" + std::to_string(static_cast<int>(result)) + ") (" +
                    file + ":" + std::to_string(line) + ")";
  return MeansUnavailable(result) ? Status::Unavailable(std::move(msg)) : Status::Internal(std::move(msg));
}

}  // namespace braid
