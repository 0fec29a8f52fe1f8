// The real forwarders, one factory each (kernels/cuda/real/*.cc).
#pragma once

#include <memory>

#include "braid/blaslt_api.h"
#include "braid/cuda_api.h"
#include "braid/fused_kernel_api.h"
#include "braid/gemm_core_api.h"
#include "braid/gpu_tracer.h"
#include "braid/nccl_api.h"

namespace braid::cuda {

std::shared_ptr<CudaApi> MakeRealCuda();
std::shared_ptr<NcclApi> MakeRealNccl();
std::shared_ptr<GpuTracer> MakeRealTracer();
std::shared_ptr<FusedKernelApi> MakeRealFused();
std::shared_ptr<GemmCoreApi> MakeRealGemmCore();
// On the calling thread's current device.
Result<std::unique_ptr<BlasLtApi>> MakeRealBlasLt();

}  // namespace braid::cuda
