// Picks the backend named on the command line, or says why it cannot run here.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "braid/backend.h"
#include "braid/cpu_backend.h"
#include "braid/cuda_backend.h"
#include "braid/launcher.h"
#include "braid/sim_backend.h"
#include "braid/status.h"

namespace braid::cli {

// --loopback, --tf32: read by the cuda backend only. --timeout: by the cuda
// backend and the cpu backend's threads (CpuOptionsOf); under mpirun by both
// backends' processes (mpi_job.h).
void AddCudaOptions(CLI::App* sub, CudaBackendOptions* o);

// The cpu backend's options from the command's flags: the link emulation,
// and --timeout (held in `cuda`) when `timeout_option` was given, else
// CpuBackendOptions' own default.
CpuBackendOptions CpuOptionsOf(double link_gbps, double link_latency_us, const CudaBackendOptions& cuda,
                               const CLI::Option* timeout_option);

// --timeout given (`timeout_option` counted it) to a backend without a
// watchdog (sim): Invalid whatever its value, the cuda default included
// (which a check of the value could not tell from no flag).
Status CheckTimeoutApplies(std::string_view backend, const CLI::Option* timeout_option);

// "sim" models the GPUs and links of `topology` (a built-in name or a file);
// "cpu" runs for real on this machine with `cpu` link emulation; "cuda" runs
// on this machine's GPUs (Unavailable, exit 1, without one). --loopback and
// --tf32 given to another backend are refused (--timeout given to sim:
// CheckTimeoutApplies, first).
Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const std::string& topology,
                                             const CpuBackendOptions& cpu = {}, const CudaBackendOptions& cuda = {});
// The same with the sim's hardware already loaded (LoadSimHardware).
Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const SimHardware& hw,
                                             const CpuBackendOptions& cpu = {}, const CudaBackendOptions& cuda = {});

// --backend cuda as one process of an mpirun job (`world`, world size > 1):
// rank world->rank() on its local GPU. Collective.
Result<std::unique_ptr<Backend>> MakeCudaProcessBackend(const std::string& topology, const CudaBackendOptions& cuda,
                                                        Launcher* world);

}  // namespace braid::cli
