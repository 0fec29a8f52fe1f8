// GpuTracer over the CUPTI collector (profiler/cupti) plus NVTX ranges that
// name every step in Nsight Systems.
#include <memory>
#include <string>

#include "braid/cupti_collector.h"
#include "braid/nvtx_range.h"
#include "real/real_seams.h"
#if defined(BRAID_HAVE_NVTX3)
#include <nvtx3/nvToolsExt.h>
#endif

namespace braid::cuda {

namespace {

class RealTracer : public GpuTracer {
 public:
  Status Start() override {
    collector_ = std::make_unique<CuptiCollector>();
    return collector_->Start();
  }
  Status PushStep(uint64_t correlation, std::string_view name) override {
#if defined(BRAID_HAVE_NVTX3)
    nvtxRangePushA(std::string(name).c_str());
#endif
    if (collector_ && collector_->running()) return CuptiCollector::PushCorrelation(correlation);
    return Status::Ok();
  }
  Status PopStep() override {
#if defined(BRAID_HAVE_NVTX3)
    nvtxRangePop();
#endif
    if (collector_ && collector_->running()) return CuptiCollector::PopCorrelation();
    return Status::Ok();
  }
  Status Stop() override { return collector_ ? collector_->Stop() : Status::Ok(); }
  std::vector<Event> TakeEvents() override { return collector_ ? collector_->TakeEvents() : std::vector<Event>{}; }
  Result<int64_t> NowNs() override { return CuptiCollector::Timestamp(); }

 private:
  std::unique_ptr<CuptiCollector> collector_;
};

}  // namespace

std::shared_ptr<GpuTracer> MakeRealTracer() { return std::make_shared<RealTracer>(); }

}  // namespace braid::cuda
