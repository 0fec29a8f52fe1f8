#include "backend_choice.h"

#include <cstdio>
#include <optional>
#include <string>

#include "braid/backend_kind.h"
#include "braid/cpu_backend.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid::cli {

void AddCudaOptions(CLI::App* sub, CudaBackendOptions* o) {
  sub->add_flag("--loopback", o->loopback,
                "cuda: run every rank on GPU 0 (transfers become device copies); sim: predict such a run");
  // Three defaults: the cuda and cpu watchdogs' (their options), and 300 s under mpirun (cli/mpi_job.h).
  char help[240];
  std::snprintf(help, sizeof help,
                "cuda, cpu: seconds an iteration may take before the watchdog aborts it (default cuda %g, cpu %g); "
                "under mpirun: seconds a rank waits for a peer (default 300)",
                CudaBackendOptions{}.timeout_s, CpuBackendOptions{}.timeout_s);
  sub->add_option("--timeout", o->timeout_s, help);
  sub->add_flag("--tf32", o->tf32, "cuda: fp32 GEMMs may use TF32 tensor cores");
  sub->add_option_function<std::string>(
         "--fused-engine",
         [o](const std::string& name) {
           Result<FusedEngine> engine = ParseNamed(kFusedEngineNames, "--fused-engine", name);
           if (!engine.ok()) throw CLI::ValidationError("--fused-engine", engine.status().message());
           o->fused_engine = *engine;
         },
         "cuda, --algo fused: tasks (our persistent task kernel) or core (the GEMM core: ag_gemm tiles wait for "
         "their rows' pulls, gemm_rs tiles go to their owners' reduce; bf16/fp16, FP8 E4M3 on sm_90a)")
      ->default_str("tasks");
}

CpuBackendOptions CpuOptionsOf(double link_gbps, double link_latency_us, const CudaBackendOptions& cuda,
                               const CLI::Option* timeout_option) {
  CpuBackendOptions o;
  o.link_gbps = link_gbps;
  o.link_latency_us = link_latency_us;
  if (timeout_option != nullptr && timeout_option->count() > 0) o.timeout_s = cuda.timeout_s;
  return o;
}

Status CheckTimeoutApplies(std::string_view backend, const CLI::Option* timeout_option) {
  const std::optional<BackendKind> kind = BackendKindNamed(backend);
  if (kind == BackendKind::kCpu || kind == BackendKind::kCuda || timeout_option == nullptr ||
      timeout_option->count() == 0) {
    return Status::Ok();
  }
  return Status::Invalid("--timeout applies to the cpu and cuda backends only");
}

namespace {

// Cuda-only flags given to a backend that would ignore them (--loopback: sim
// predicts it too). --timeout is CheckTimeoutApplies's: only the flag's
// count tells it given.
Status CheckCudaOnlyOptions(std::optional<BackendKind> kind, const CudaBackendOptions& o) {
  const CudaBackendOptions d;
  if (kind == BackendKind::kCuda) return Status::Ok();
  if (o.loopback != d.loopback && kind != BackendKind::kSim) {
    return Status::Invalid("--loopback applies to the cuda and sim backends only");
  }
  if (o.tf32 != d.tf32) return Status::Invalid("--tf32 applies to the cuda backend only");
  if (o.fused_engine != d.fused_engine) return Status::Invalid("--fused-engine applies to the cuda backend only");
  return Status::Ok();
}

// Every backend but sim (`name` is refused here if no backend's). `gpu`: the
// topology's GPU, so that a cuda run on another board says so.
Result<std::unique_ptr<Backend>> MakeOtherBackend(std::string_view name, const CpuBackendOptions& cpu,
                                                  const CudaBackendOptions& cuda, const std::string& gpu) {
  BRAID_ASSIGN_OR_RETURN(const BackendKind kind, ParseBackendKind(name));
  if (kind == BackendKind::kCpu) {
    BRAID_RETURN_IF_ERROR(CheckCpuBackendOptions(cpu));
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(cpu));
  }
  if (kind == BackendKind::kCuda) {
    CudaBackendOptions o = cuda;
    o.expected_gpu = gpu;
    return MakeCudaBackend(o);
  }
  return Status::Internal("the sim backend is made by MakeBackend");
}

}  // namespace

Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const std::string& topology,
                                             const CpuBackendOptions& cpu, const CudaBackendOptions& cuda) {
  const std::optional<BackendKind> kind = BackendKindNamed(name);
  BRAID_RETURN_IF_ERROR(CheckCudaOnlyOptions(kind, cuda));
  if (kind == BackendKind::kSim) {
    BRAID_ASSIGN_OR_RETURN(auto hw, LoadSimHardware(topology));
    return MakeBackend(name, hw, cpu, cuda);
  }
  std::string gpu;
  if (kind == BackendKind::kCuda) {
    if (auto topo = LoadTopology(topology); topo.ok()) gpu = topo->gpu;
  }
  return MakeOtherBackend(name, cpu, cuda, gpu);
}

Result<std::unique_ptr<Backend>> MakeBackend(std::string_view name, const SimHardware& hw, const CpuBackendOptions& cpu,
                                             const CudaBackendOptions& cuda) {
  const std::optional<BackendKind> kind = BackendKindNamed(name);
  BRAID_RETURN_IF_ERROR(CheckCudaOnlyOptions(kind, cuda));
  if (kind == BackendKind::kSim) {
    return std::unique_ptr<Backend>(
        std::make_unique<SimBackend>(hw.gpu, hw.topo, SimModelOptions{.loopback = cuda.loopback}));
  }
  return MakeOtherBackend(name, cpu, cuda, hw.topo.gpu);
}

Result<std::unique_ptr<Backend>> MakeCudaProcessBackend(const std::string& topology, const CudaBackendOptions& cuda,
                                                        Launcher* world) {
  CudaBackendOptions o = cuda;
  if (auto topo = LoadTopology(topology); topo.ok()) o.expected_gpu = topo->gpu;
  return MakeCudaBackend(o, world);
}

}  // namespace braid::cli
