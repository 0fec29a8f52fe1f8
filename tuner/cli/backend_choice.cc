#include "backend_choice.h"

#include <cstdio>
#include <string>

#include "braid/cpu_backend.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid::cli {

void AddCudaOptions(CLI::App* sub, CudaBackendOptions* o) {
  sub->add_flag("--loopback", o->loopback, "cuda: run every rank on GPU 0 (transfers become device copies)");
  // Two defaults: the cuda watchdog's (CudaBackendOptions), and 300 s under mpirun (cli/mpi_job.h).
  char help[200];
  std::snprintf(help, sizeof help,
                "cuda: seconds an iteration may take before the watchdog aborts it (default %g); under mpirun: "
                "seconds a rank waits for a peer (default 300)",
                CudaBackendOptions{}.timeout_s);
  sub->add_option("--timeout", o->timeout_s, help);
  sub->add_flag("--tf32", o->tf32, "cuda: fp32 GEMMs may use TF32 tensor cores");
}

namespace {

bool IsDefault(const CudaBackendOptions& o) {
  const CudaBackendOptions d;
  return o.loopback == d.loopback && o.timeout_s == d.timeout_s && o.tf32 == d.tf32;
}

// Every backend but sim. `gpu`: the topology's GPU, so that a cuda run on
// another board says so.
Result<std::unique_ptr<Backend>> MakeOtherBackend(std::string_view name, const CpuBackendOptions& cpu,
                                                  const CudaBackendOptions& cuda, const std::string& gpu) {
  if (name == "cpu") {
    BRAID_RETURN_IF_ERROR(CheckCpuBackendOptions(cpu));
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(cpu));
  }
  if (name == "cuda") {
    CudaBackendOptions o = cuda;
    o.expected_gpu = gpu;
    return MakeCudaBackend(o);
  }
  return Status::Invalid("unknown backend '" + OneLine(name) + "' (known: sim, cpu, cuda)");
}

}  // namespace

Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const std::string& topology,
                                             const CpuBackendOptions& cpu, const CudaBackendOptions& cuda) {
  if (name != "cuda" && !IsDefault(cuda)) {
    return Status::Invalid("--loopback, --timeout and --tf32 apply to the cuda backend only");
  }
  if (name == "sim") return MakeSimBackend(topology);
  std::string gpu;
  if (name == "cuda") {
    if (auto topo = LoadTopology(topology); topo.ok()) gpu = topo->gpu;
  }
  return MakeOtherBackend(name, cpu, cuda, gpu);
}

Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const SimHardware& hw, const CpuBackendOptions& cpu,
                                             const CudaBackendOptions& cuda) {
  if (name != "cuda" && !IsDefault(cuda)) {
    return Status::Invalid("--loopback, --timeout and --tf32 apply to the cuda backend only");
  }
  if (name == "sim") return std::unique_ptr<Backend>(std::make_unique<SimBackend>(hw.gpu, hw.topo));
  return MakeOtherBackend(name, cpu, cuda, hw.topo.gpu);
}

Result<std::unique_ptr<Backend>> MakeCudaProcessBackend(const std::string& topology, const CudaBackendOptions& cuda,
                                                        Launcher* world) {
  CudaBackendOptions o = cuda;
  if (auto topo = LoadTopology(topology); topo.ok()) o.expected_gpu = topo->gpu;
  return MakeCudaBackend(o, world);
}

}  // namespace braid::cli
