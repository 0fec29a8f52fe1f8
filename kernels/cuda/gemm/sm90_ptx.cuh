// The sm_90 PTX the warp-specialized kernel is built from, one wrapper per
// instruction: mbarriers (the ring's full/empty handshakes), TMA tensor loads,
// the async-proxy fence, wgmma's fence/commit/wait, and setmaxnreg. Inline
// PTX because CUTLASS is not a dependency; each wrapper says why it is used.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "gemm/gemm_device_common.cuh"  // GlobalTimerNs

namespace braid::cuda::gemm::sm90 {

__device__ __forceinline__ uint32_t SmemAddr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// An mbarrier completes a phase when `count` arrivals and all the
// transaction bytes announced with expect_tx have landed.
__device__ __forceinline__ void MbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// The producer's arrival on a full barrier, announcing the bytes its TMA
// loads will deliver: the phase completes only when they have all landed.
__device__ __forceinline__ void MbarArriveExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// A consumer's arrival on an empty barrier: "this stage may be refilled".
__device__ __forceinline__ void MbarArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// True once the phase of parity `parity` has completed. try_wait (not
// test_wait) lets the hardware suspend the thread for a while instead of
// spinning on shared memory.
__device__ __forceinline__ bool MbarTryWait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n"
      ".reg .pred ready;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
      "selp.u32 %0, 1, 0, ready;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// No wait is unbounded: a handshake that never completes (a phase bit out
// of step, a TMA load that faults) traps after kMbarWaitLimitNs on
// %globaltimer, so the launch fails with an error the host reports instead
// of holding the GPU forever (the fused kernel bounds its flag waits the
// same way). One k-block's wait is microseconds; 4 s is no real wait.
constexpr uint64_t kMbarWaitLimitNs = 4'000'000'000ull;

__device__ __forceinline__ void MbarWait(uint32_t bar, uint32_t parity) {
  if (MbarTryWait(bar, parity)) return;
  const uint64_t start = GlobalTimerNs();
  while (!MbarTryWait(bar, parity)) {
    if (GlobalTimerNs() - start > kMbarWaitLimitNs) __trap();
  }
}

// Makes the generic-proxy mbarrier.init visible to the async proxy (TMA's
// complete_tx writes) before any load is issued against the barriers.
__device__ __forceinline__ void FenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Orders global memory the generic proxy has seen (an acquired flag and the
// data it guards) before the async proxy's next reads of it (TMA loads).
__device__ __forceinline__ void FenceProxyAsyncGlobal() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }

// One 2-D TMA tile load global → shared (swizzled as the map says), its
// bytes counted on `bar`. c0 is the contiguous coordinate. Out-of-bounds
// elements arrive as zeros, and the full box's bytes are still counted.
__device__ __forceinline__ void TmaLoad2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
      "[%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// Pulls the tensor map (kernel parameter memory) into the TMA unit's cache
// before the first load needs it.
__device__ __forceinline__ void TmaPrefetchMap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// wgmma.fence: register and shared-memory accesses before it are ordered
// before the wgmma that follows (required before the first wgmma touching
// accumulators the thread has written).
__device__ __forceinline__ void WgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void WgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most N committed wgmma groups are still in flight.
template <int N>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Warp specialization moves registers between warpgroups: the producer needs
// few (it only issues TMA), the consumers hold 64 fp32 accumulators each
// plus addresses. Counts are per thread and multiples of 8.
template <int N>
__device__ __forceinline__ void SetMaxRegDec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void SetMaxRegInc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// Barrier `Id` among `Threads` threads (a multiple of 32) of the CTA: the
// warps that name it wait for one another and no other warp takes part.
template <int Id, int Threads>
__device__ __forceinline__ void NamedBarrierSync() {
  static_assert(Id > 0 && Id < 16 && Threads % 32 == 0, "barrier 0 is __syncthreads'; 16 barriers per CTA");
  asm volatile("bar.sync %0, %1;\n" ::"n"(Id), "n"(Threads) : "memory");
}

}  // namespace braid::cuda::gemm::sm90
