// What CUDA devices this process can see. Asking never crashes: on a machine
// with no GPU or no driver it returns a status that says so.
#pragma once

#include <string>

#include "braid/status.h"

namespace braid::cuda {

struct DeviceInfo {
  int count = 0;
  std::string first_name;  // name of device 0
  int first_sm_count = 0;
  int first_cc_major = 0, first_cc_minor = 0;
};

// Unavailable (with the CUDA error text) when no device can be used.
Result<DeviceInfo> QueryDevices();

}  // namespace braid::cuda
