// MakeCudaBackend with the real forwarders: asks the runtime for devices
// first, so a machine without a GPU gets one line and exit 1.
#include "real/real_seams.h"

#include "braid/cuda_backend.h"

#include <cstdlib>

namespace braid {

Result<CudaSeams> MakeRealCudaSeams() {
  CudaSeams s;
  s.cuda = cuda::MakeRealCuda();
  s.nccl = cuda::MakeRealNccl();
  s.tracer = cuda::MakeRealTracer();
  s.fused = cuda::MakeRealFused();
  s.core = cuda::MakeRealGemmCore();
  s.make_blas = [] { return cuda::MakeRealBlasLt(); };
  return s;
}

namespace {

Result<std::unique_ptr<Backend>> MakeOnThisProcess(const CudaBackendOptions& given, Launcher* world) {
  BRAID_RETURN_IF_ERROR(CheckCudaBackendOptions(given));
  CudaBackendOptions options = given;
  BRAID_RETURN_IF_ERROR(ReadFusedTestHook(std::getenv("BRAID_FUSED_NEVER_SET"), options));
  // Loopback puts every rank's streams on one GPU; with fewer hardware queues
  // than streams, a stream waiting on a flag could block the queue of the
  // stream that would write it. Ask for the most queues unless the user chose
  // (read once, when the first CUDA call creates the context). Unverified on a GPU.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  auto seams = MakeRealCudaSeams();
  BRAID_RETURN_IF_ERROR(seams.status());
  auto count = seams->cuda->DeviceCount();
  if (!count.ok()) return Status::Unavailable("cuda backend: no usable CUDA device: " + count.status().message());
  if (*count < 1) return Status::Unavailable("cuda backend: no CUDA device found");
  return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(std::move(seams).value(), options, world));
}

}  // namespace

Result<std::unique_ptr<Backend>> MakeCudaBackend(const CudaBackendOptions& options, Launcher* world) {
  Result<std::unique_ptr<Backend>> made = MakeOnThisProcess(options, world);
  // Under mpirun every process gets the same verdict (exit 1 everywhere when one has no GPU).
  if (world != nullptr && world->world_size() > 1) BRAID_RETURN_IF_ERROR(AgreeOnStatus(*world, made.status()));
  return made;
}

}  // namespace braid
