#include "gemm/gemm_run.h"

#include <string>

#include "cuda_check.h"
#include "gemm/gemm_kernels.h"
#include "gemm/scatter_tables.h"
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
               cudaStream_t s, const ArrivalWait& wait, const ScatterEpilogue& scatter, const Fp8Scales& scales) {
  BRAID_ASSIGN_OR_RETURN(const GemmPlan plan, PlanGemm(problem, device));
  if (problem.dtype == DType::kFp8E4m3 && (scales.a == nullptr || scales.b == nullptr))
    return Status::Invalid("FP8 GEMM without both per-tensor scales (device fp32 scalars, Fp8Scales)");
  if (scatter.ranks != 0) BRAID_RETURN_IF_ERROR(CheckScatterEpilogue(plan.scheduler, scatter));
  if (wait.flags != nullptr && (wait.order == nullptr || wait.step == nullptr))
    return Status::Invalid("GEMM arrival flags without an order and steps (arrival_wait.h)");
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  // A scatter's c is unused (the tiles go to the owners' slots), so it is not checked.
  if (!aligned(a) || !aligned(b) || (scatter.ranks == 0 && !aligned(c)))
    return Status::Invalid("GEMM operand address is not 16-byte aligned (every global access is a 16-byte copy)");
  if (device.arch == GemmArch::kSm90a) {
    CUtensorMap map_a, map_b;
    BRAID_RETURN_IF_ERROR(EncodeTensorMap(plan.tma_a, a, problem.dtype, &map_a));
    BRAID_RETURN_IF_ERROR(EncodeTensorMap(plan.tma_b, b, problem.dtype, &map_b));
    return BRAID_CUDA_STATUS(LaunchGemmSm90(plan, map_a, map_b, c, s, wait, scatter, scales));
  }
  return BRAID_CUDA_STATUS(LaunchGemmSm80(plan, a, b, c, s, wait, scatter));
}

}  // namespace braid::cuda::gemm
