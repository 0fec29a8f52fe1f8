// A host vector copied to a new device buffer, for the tables the fused
// engines hand their kernels and the probes `calibrate --measure` times.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "braid/cuda_api.h"
#include "braid/status.h"

namespace braid::cuda {

using DeviceAlloc = std::function<Result<DevPtr>(size_t bytes)>;

// A device copy of `v` (at least one element's room, so an empty table is a
// valid pointer).
template <typename T>
Result<DevPtr> UploadVector(const DeviceAlloc& alloc, CudaApi& cuda, const std::vector<T>& v) {
  auto p = alloc(std::max<size_t>(v.size(), 1) * sizeof(T));
  BRAID_RETURN_IF_ERROR(p.status());
  if (!v.empty()) BRAID_RETURN_IF_ERROR(cuda.Upload(*p, v.data(), v.size() * sizeof(T)));
  return p;
}

}  // namespace braid::cuda
