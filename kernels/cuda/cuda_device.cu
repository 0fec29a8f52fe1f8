#include "braid/cuda_device.h"
#include "cuda_check.h"

namespace braid::cuda {

Result<DeviceInfo> QueryDevices() {
  DeviceInfo info;
  const Status s = BRAID_CUDA_STATUS(cudaGetDeviceCount(&info.count));
  if (!s.ok()) return Status::Unavailable("no usable CUDA device: " + s.message());
  if (info.count == 0) return Status::Unavailable("no CUDA device found");
  cudaDeviceProp prop{};
  BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGetDeviceProperties(&prop, 0)));
  info.first_name = prop.name;
  info.first_sm_count = prop.multiProcessorCount;
  info.first_cc_major = prop.major;
  info.first_cc_minor = prop.minor;
  return info;
}

}  // namespace braid::cuda
