// GemmCoreApi forwarded to the GEMM core (gemm/gemm_run.h), and its timeout
// records in host-mapped memory: the kernel writes the record and traps, the
// trap loses the context and its device memory, and the host still reads
// the word through the same address (unified addressing).
#include <string>

#include "braid/gemm_core_api.h"
#include "cuda_check.h"
#include "gemm/gemm_run.h"
#include "gemm/partial_reduce.h"
#include "gemm/row_pull_launch.h"
#include "real/real_seams.h"
#include "real/runtime_stream.h"

namespace braid::cuda {

namespace {

class RealGemmCore : public GemmCoreApi {
 public:
  Status Launch(const CoreGemmLaunch& l, GpuStream s) override {
    return gemm::RunGemm(l.problem, l.device, l.a, l.b, l.c, RuntimeStream(s), l.wait, l.scatter, l.scales);
  }

  Status LaunchReduce(const gemm::PartialReduce& r, int ctas, GpuStream s) override {
    BRAID_RETURN_IF_ERROR(gemm::CheckPartialReduce(r));
    if (ctas < 1) return Status::Invalid("the partial reduce needs at least one CTA");
    return BRAID_CUDA_STATUS(gemm::LaunchPartialReduce(r, ctas, RuntimeStream(s)));
  }

  Status LaunchPulls(const gemm::RowPullLaunch& p, int ctas, GpuStream s) override {
    return BRAID_CUDA_STATUS(gemm::LaunchRowPulls(p, ctas, RuntimeStream(s)));
  }

  Result<uint32_t*> NewTimeoutRecord() override {
    void* host = nullptr;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaHostAlloc(&host, sizeof(uint32_t), cudaHostAllocMapped)));
    *static_cast<volatile uint32_t*>(host) = 0;
    void* device = nullptr;
    const cudaError_t e = cudaHostGetDevicePointer(&device, host, 0);
    if (e != cudaSuccess || device != host) {
      (void)cudaFreeHost(host);
      if (e != cudaSuccess) return BRAID_CUDA_STATUS(e);
      return Status::Unavailable("the GEMM core's timeout record needs unified addressing (64-bit, sm_80 or later)");
    }
    return static_cast<uint32_t*>(host);
  }

  uint32_t ReadTimeoutRecord(const uint32_t* record) override { return *static_cast<const volatile uint32_t*>(record); }

  void FreeTimeoutRecord(uint32_t* record) override { (void)cudaFreeHost(record); }
};

}  // namespace

std::shared_ptr<GemmCoreApi> MakeRealGemmCore() { return std::make_shared<RealGemmCore>(); }

}  // namespace braid::cuda
