// This braid was built without the CUDA toolkit: --measure says so.
#include "braid/gpu_measure.h"

namespace braid::measure {

Result<std::unique_ptr<MeasureDevice>> OpenRealMeasureDevice(int /*device*/) {
  return Status::Unavailable("this braid was built without CUDA (BRAID_WITH_CUDA=OFF or no nvcc): nothing to measure");
}

}  // namespace braid::measure
