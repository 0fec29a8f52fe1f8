// This braid was built without the CUDA toolkit: --backend cuda says so.
#include "braid/cuda_backend.h"

#include <cstdlib>

namespace braid {

Result<CudaSeams> MakeRealCudaSeams() {
  return Status::Unavailable("this braid was built without CUDA (BRAID_WITH_CUDA=OFF or no nvcc); use the cpu backend");
}

Result<std::unique_ptr<Backend>> MakeCudaBackend(const CudaBackendOptions& given, Launcher* world) {
  Status s = CheckCudaBackendOptions(given);
  CudaBackendOptions options = given;
  if (s.ok()) s = ReadFusedTestHook(std::getenv("BRAID_FUSED_NEVER_SET"), options);
  if (s.ok()) s = MakeRealCudaSeams().status();
  // Under mpirun every process says so alike.
  if (world != nullptr && world->world_size() > 1) s = AgreeOnStatus(*world, s);
  return s;
}

}  // namespace braid
