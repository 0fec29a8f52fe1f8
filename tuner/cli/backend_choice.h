// Picks the backend named on the command line, or says why it cannot run here.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "braid/backend.h"
#include "braid/cpu_backend.h"
#include "braid/sim_backend.h"
#include "braid/status.h"

namespace braid::cli {

// "sim" models the GPUs and links of `topology` (a built-in name or a file);
// "cpu" runs for real on this machine with `cpu` link emulation; "cuda" is Unavailable (exit 1)
// without a usable GPU and Invalid (exit 2) until it is implemented.
Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const std::string& topology,
                                             const CpuBackendOptions& cpu = {});
// The same with the sim's hardware already loaded (LoadSimHardware).
Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const SimHardware& hw,
                                             const CpuBackendOptions& cpu = {});

}  // namespace braid::cli
