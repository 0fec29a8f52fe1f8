// FusedKernelApi forwarded to the fused kernel's launcher.
#include <string>

#include "braid/fused_kernel_api.h"
#include "cuda_check.h"
#include "fused/fused_kernel.h"
#include "real/real_seams.h"
#include "real/runtime_stream.h"

namespace braid::cuda {

namespace {

class RealFused : public FusedKernelApi {
 public:
  Status Launch(const FusedLaunch& launch, GpuStream s) override {
    int capacity = 0;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(fused::FusedKernelCapacity(launch.dtype, &capacity)));
    if (launch.ctas > capacity) {
      return Status::Invalid("the fused kernel's " + std::to_string(launch.ctas) + " CTAs exceed the " +
                             std::to_string(capacity) + " this GPU holds at once (its spinning CTAs would deadlock)");
    }
    return BRAID_CUDA_STATUS(fused::LaunchFusedKernel(launch, RuntimeStream(s)));
  }
};

}  // namespace

std::shared_ptr<FusedKernelApi> MakeRealFused() { return std::make_shared<RealFused>(); }

}  // namespace braid::cuda
