#include "gemm/gemm_run.h"

#include <string>

#include "cuda_check.h"
#include "gemm/gemm_kernels.h"
#include "gemm/tma_encode.h"

namespace braid::cuda::gemm {

Result<GemmDevice> CurrentGemmDevice() {
  int dev = 0, major = 0, minor = 0, sms = 0, optin = 0;
  BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGetDevice(&dev)));
  BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)));
  BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)));
  BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)));
  BRAID_RETURN_IF_ERROR(
      BRAID_CUDA_STATUS(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)));
  GemmDevice d;
  BRAID_ASSIGN_OR_RETURN(d.arch, ArchForCapability(major, minor));
  d.num_sms = sms;
  d.smem_optin = optin;
  return d;
}

Status RunGemm(const GemmProblem& problem, const GemmDevice& device, const void* a, const void* b, void* c,
               cudaStream_t s, const ArrivalWait& wait) {
  BRAID_ASSIGN_OR_RETURN(const GemmPlan plan, PlanGemm(problem, device));
  for (const void* ptr : {a, b, static_cast<const void*>(c)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      return Status::Invalid("GEMM operand address is not 16-byte aligned (every global access is a 16-byte copy)");
  if (device.arch == GemmArch::kSm90a) {
    CUtensorMap map_a, map_b;
    BRAID_RETURN_IF_ERROR(EncodeTensorMap(plan.tma_a, a, problem.dtype, &map_a));
    BRAID_RETURN_IF_ERROR(EncodeTensorMap(plan.tma_b, b, problem.dtype, &map_b));
    return BRAID_CUDA_STATUS(LaunchGemmSm90(plan, map_a, map_b, c, s, wait));
  }
  return BRAID_CUDA_STATUS(LaunchGemmSm80(plan, a, b, c, s, wait));
}

}  // namespace braid::cuda::gemm
