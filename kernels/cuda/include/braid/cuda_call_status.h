// How a failed CUDA runtime call becomes a Status, written over a small
// runtime interface so the real runtime (cuda_check.h, BRAID_CUDA_STATUS) and
// FakeCudaRuntime (cuda_fakes.h) go through the same code. No CUDA header.
//
// The backend contract (braid/backend.h): kUnavailable only where the error
// means this machine has no usable device or driver; every other failure is
// one while running, kInternal.
//
// The runtime keeps a per-thread "last error" that every failing call sets and
// that a kernel launch check (cudaGetLastError right after the launch) reads.
// A non-sticky error (an allocation that failed) stays there until read, so a
// failure we already turned into a Status would be reported again, as the
// launch's, by the next launch check. CudaCallStatus reads it once after a
// failure to clear it. A sticky error (a kernel fault) cannot be cleared: every
// later call and launch check reports it, as they should.
#pragma once

#include <string>

#include "braid/status.h"

namespace braid::cuda {

// Runtime: int GetLastError() (returns the last error and clears it unless
// sticky), const char* ErrorString(int), bool MeansNoDevice(int); 0 is
// success, as cudaSuccess.
template <typename Runtime>
Status CudaCallStatus(Runtime& runtime, int error, const char* call, const char* file, int line) {
  if (error == 0) return Status::Ok();
  (void)runtime.GetLastError();  // this failure is reported here, not by the next launch check
  std::string message =
      std::string(call) + " failed: " + runtime.ErrorString(error) + " (" + file + ":" + std::to_string(line) + ")";
  return runtime.MeansNoDevice(error) ? Status::Unavailable(std::move(message)) : Status::Internal(std::move(message));
}

}  // namespace braid::cuda
