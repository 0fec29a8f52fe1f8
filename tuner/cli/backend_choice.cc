#include "backend_choice.h"

#include <string>

#include "braid/cpu_backend.h"
#include "braid/sim_backend.h"
#if defined(BRAID_HAVE_CUDA)
#include "braid/cuda_device.h"
#endif

namespace braid::cli {

namespace {

// Every backend but sim; NotFound when `name` is sim or unknown.
Result<std::unique_ptr<Backend>> MakeOtherBackend(std::string_view name, const CpuBackendOptions& cpu) {
  if (name == "cpu") {
    BRAID_RETURN_IF_ERROR(CheckCpuBackendOptions(cpu));
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(cpu));
  }
  if (name == "cuda") {
#if defined(BRAID_HAVE_CUDA)
    auto devices = cuda::QueryDevices();
    if (!devices.ok()) return Status::Unavailable("cuda backend: " + devices.status().message());
    return Status::Invalid("the cuda backend is not implemented yet (found " +
                           std::to_string(devices->count) + " GPU(s)); use --backend cpu");
#else
    return Status::Invalid("cuda backend: this braid was built without CUDA (BRAID_WITH_CUDA=OFF or no nvcc); use --backend cpu");
#endif
  }
  return Status::Invalid("unknown backend '" + OneLine(name) + "' (known: sim, cpu, cuda)");
}

}  // namespace

Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const std::string& topology,
                                             const CpuBackendOptions& cpu) {
  if (name == "sim") return MakeSimBackend(topology);
  return MakeOtherBackend(name, cpu);
}

Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const SimHardware& hw,
                                             const CpuBackendOptions& cpu) {
  if (name == "sim") return std::unique_ptr<Backend>(std::make_unique<SimBackend>(hw.gpu, hw.topo));
  return MakeOtherBackend(name, cpu);
}

}  // namespace braid::cli
