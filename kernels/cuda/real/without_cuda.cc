// This braid was built without the CUDA toolkit: --backend cuda says so.
#include "braid/cuda_backend.h"

#include <cstdlib>

namespace braid {

Result<CudaSeams> MakeRealCudaSeams() {
  return Status::Unavailable("this braid was built without CUDA (BRAID_WITH_CUDA=OFF or no nvcc); use --backend cpu");
}

Result<std::unique_ptr<Backend>> MakeCudaBackend(const CudaBackendOptions& given) {
  BRAID_RETURN_IF_ERROR(CheckCudaBackendOptions(given));
  CudaBackendOptions options = given;
  BRAID_RETURN_IF_ERROR(ReadFusedTestHook(std::getenv("BRAID_FUSED_NEVER_SET"), options));
  auto seams = MakeRealCudaSeams();
  BRAID_RETURN_IF_ERROR(seams.status());
  return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(std::move(seams).value(), options));
}

}  // namespace braid
