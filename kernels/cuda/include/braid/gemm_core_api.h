// The GEMM core (kernels/cuda/gemm) behind one interface, for the fused
// plans' core engine (CudaBackendOptions::fused_engine): the real one plans,
// encodes the TMA maps and launches the kernel of the device's architecture
// (gemm/gemm_run.h); the fake (braid/cuda_fakes.h) computes the product on
// host memory once every flag the launch waits for is up (a reduce once its
// counters are), and ends a launch whose flags never come up the way the
// kernel does (the record, then a failed launch).
#pragma once

#include <cstdint>

#include "braid/cuda_api.h"
#include "gemm/arrival_wait.h"
#include "gemm/gemm_plan.h"
#include "gemm/partial_reduce_tiles.h"
#include "gemm/row_pull.h"
#include "gemm/scatter_epilogue.h"

namespace braid::cuda {

struct CoreGemmLaunch {
  // problem.dtype fp8_e4m3 (sm_90a): a one byte per element, b stored as
  // bᵀ (n × k, the cuda backend's FP8 B, braid/blaslt_api.h Fp8Operands),
  // c (or the scatter's slots) bf16, `scales` both set.
  gemm::GemmProblem problem;
  // num_sms: the persistent grid's SMs (in loopback the rank's share).
  gemm::GemmDevice device;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  // An all-gather GEMM's tile order and flags (device tables); timed_out is
  // a NewTimeoutRecord word. All null: the plain GEMM.
  gemm::ArrivalWait wait;
  // A reduce-scatter GEMM's epilogue (c unused): each tile to its owner's
  // slot, then the owner's tile counter raised. ranks 0: into c.
  gemm::ScatterEpilogue scatter;
  // FP8 only: the per-tensor dequantization scales (device fp32 scalars),
  // applied in the epilogue before a tile is stored or scattered.
  gemm::Fp8Scales scales;
};

class GemmCoreApi {
 public:
  virtual ~GemmCoreApi() = default;
  // Enqueues the launch on `s` (the current device).
  virtual Status Launch(const CoreGemmLaunch& launch, GpuStream s) = 0;
  // Enqueues the owner's reduction of a reduce-scatter GEMM (ctas CTAs,
  // each tile once its counter holds epoch·ranks); Invalid as
  // CheckPartialReduce refuses.
  virtual Status LaunchReduce(const gemm::PartialReduce& reduce, int ctas, GpuStream s) = 0;
  // Enqueues an all-gather's pulls by SMs (gemm/row_pull.h) on ctas CTAs.
  virtual Status LaunchPulls(const gemm::RowPullLaunch& pulls, int ctas, GpuStream s) = 0;
  // A zeroed word the kernel writes before it traps and the host reads after
  // the context is lost: host-mapped memory, the same address on both sides.
  virtual Result<uint32_t*> NewTimeoutRecord() = 0;
  virtual uint32_t ReadTimeoutRecord(const uint32_t* record) = 0;
  virtual void FreeTimeoutRecord(uint32_t* record) = 0;
};

}  // namespace braid::cuda
