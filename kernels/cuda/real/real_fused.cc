// FusedKernelApi forwarded to the fused kernel's launcher.
#include "braid/fused_kernel_api.h"
#include "cuda_check.h"
#include "fused/fused_kernel.h"
#include "real/real_seams.h"

namespace braid::cuda {

namespace {

class RealFused : public FusedKernelApi {
 public:
  Status Launch(const FusedLaunch& launch, GpuStream s) override {
    return BRAID_CUDA_STATUS(fused::LaunchFusedKernel(launch, reinterpret_cast<cudaStream_t>(s)));
  }
};

}  // namespace

std::shared_ptr<FusedKernelApi> MakeRealFused() { return std::make_shared<RealFused>(); }

}  // namespace braid::cuda
