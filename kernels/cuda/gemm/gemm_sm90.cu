// The GEMM core on sm_90a (H100, H200): c = a·b, bf16/fp16 in, fp32
// accumulate, bf16/fp16 out. Persistent and warp-specialized:
//
//  warpgroup 0  producer. One thread walks the CTA's tiles (tile_scheduler.h)
//               and, per k-block, waits for a free ring slot (empty barrier),
//               announces the slot's bytes on its full barrier and issues
//               three TMA loads (A 128×64, B as two 64×64 boxes). Why TMA: one
//               thread moves a whole tile, with the 128B swizzle wgmma reads,
//               zero fill at ragged edges, and no registers spent on
//               addresses. Why one producer: loads need no more issue slots,
//               so the other warps give their registers away (setmaxnreg).
//  warpgroups   consumers, rows 0-63 and 64-127 of the tile. Per k-block:
//  1 and 2      wait for the full barrier, issue four wgmma m64n128k16 on the
//               slot (descriptors: sm90_layout.h), commit, and wait until only
//               this group is in flight — then the previous k-block's wgmmas
//               are done, so its slot is released to the producer (empty
//               barrier). Why wait<1> rather than wait<0>: the tensor cores
//               keep one k-block queued while the warps move on.
//  epilogue     consumers convert their 64 fp32 accumulators to bf16x2 /
//               half2 pairs and store them straight to global, masked at
//               ragged edges (no smem staging: simplest correct first; a
//               TMA-store epilogue overlapping the next tile is the next step).
//               A reduce-scatter GEMM (scatter_epilogue.h) stores into the
//               tile's owner's slot for this rank instead of c; then a named
//               barrier over the consumer warpgroups only (the producer is
//               still issuing the next tiles' loads) and one consumer thread
//               raises the owner's tile counter.
//
// The wide variant (tile_n 256, tile_config.h) is the same kernel with a
// 64 × 256 share per consumer warpgroup: four B boxes per slot, two
// m64n128k16 wgmmas per k16 step (one per 128-column half of B, each read by
// the narrow tile's descriptor at its half's offset, sm90_layout.h), two
// accumulator halves stored side by side, and 4 stages instead of 5 (48 KiB
// a slot). Why two n128 wgmmas rather than one n256: one asm text and one
// descriptor form, already checked element by element on the host.
//
// The ring is kStages slots; each slot has a full barrier (1 arrival + the
// TMA bytes) and an empty barrier (one arrival per consumer warp). Stage and
// phase advance identically in producer and consumers across tiles, the
// phase bit flipping at every wrap; the producer starts waiting on parity 1
// of empty, which a fresh barrier reports complete, so the first pass does
// not block. Not yet run on a GPU: correctness and speed are for
// braid_gemm_bench on one.
#include <cstdint>

#include "gemm/arrival_wait.cuh"
#include "gemm/fragment_layout.h"
#include "gemm/gemm_device_common.cuh"
#include "gemm/gemm_kernels.h"
#include "gemm/scatter_epilogue.cuh"
#include "gemm/sm90_layout.h"
#include "gemm/sm90_ptx.cuh"
#include "gemm/tile_scheduler.h"
#include "gemm/wgmma_sm90.cuh"

namespace braid::cuda::gemm {

namespace {

constexpr TileConfig kConfig = TileConfigFor(GemmArch::kSm90a);
constexpr TileConfig kWideConfig = TileConfigFor(GemmArch::kSm90a, false, true);
constexpr int kTileM = 128, kTileN = 128, kTileK = 64, kThreads = 384;
// N: the tile's width, 128 or 256 (the wide variant); its stages come from
// the host's config, its bytes from sm90_layout.h.
template <int N>
constexpr int kStagesOf = TileConfigFor(GemmArch::kSm90a, false, N == sm90::kWideTileN).stages;
static_assert(kConfig.tile_m == kTileM && kConfig.tile_n == kTileN && kConfig.tile_k == kTileK &&
                  kConfig.threads == kThreads && kConfig.consumer_warpgroups == 2,
              "the kernel is written for TileConfigFor(kSm90a)");
static_assert(kWideConfig.tile_m == kTileM && kWideConfig.tile_n == sm90::kWideTileN && kWideConfig.tile_k == kTileK &&
                  kWideConfig.threads == kThreads && kWideConfig.consumer_warpgroups == 2,
              "the wide kernel is written for TileConfigFor(kSm90a, false, true)");
using sm90::kABytes;
using sm90::kBBoxBytes;
using sm90::kBBytes;
using sm90::kBHalfBytes;
template <int N>
constexpr int kBBytesOf = sm90::BBytesFor(N);
template <int N>
constexpr int kStageBytesOf = kABytes + kBBytesOf<N>;
constexpr int kStageBytes = kStageBytesOf<128>;
static_assert(sm90::kTileM == kTileM && sm90::kTileN == kTileN && sm90::kTileK == kTileK &&
                  sm90::kBoxCols == kTmaBoxBCols,
              "sm90_layout.h describes this kernel's slot");
constexpr int kConsumerWarps = 8;  // arrivals that free a slot: every consumer warp's lane 0
// Named barrier of the consumer warpgroups (the scatter epilogue); 0 is __syncthreads'.
constexpr int kConsumerBarrier = 1;
static_assert(kBBytes == (kTileN / kTmaBoxBCols) * kBBoxBytes && kConsumerWarps == 4 * kConfig.consumer_warpgroups,
              "a stage is one A box and tile_n / 64 B boxes, released by every consumer warp");
static_assert(int64_t(kStagesOf<128>) * kStageBytes + 2 * kStagesOf<128> * 8 + 1024 == SmemBytes(kConfig) &&
                  int64_t(kStagesOf<256>) * kStageBytesOf<256> + 2 * kStagesOf<256> * 8 + 1024 ==
                      SmemBytes(kWideConfig) &&
                  SmemBytes(TileConfigFor(GemmArch::kSm90a, true, true)) == SmemBytes(kWideConfig),
              "the ring must be what the host budgeted");
static_assert(kBBytesOf<256> == 4 * kBBoxBytes && kBHalfBytes == 2 * kBBoxBytes && kBHalfBytes == 128 * 128,
              "a wide slot's B is two narrow halves (bf16: two boxes each; FP8: 128 rows of 128 bytes each)");
// FP8 (D == 2): K steps of 128 one-byte elements fill the same slots.
constexpr TileConfig kFp8Config = TileConfigFor(GemmArch::kSm90a, true);
static_assert(kFp8Config.tile_k == sm90::kFp8TileK && sm90::kFp8TileK * 1 == kTileK * 2 &&
                  SmemBytes(kFp8Config) == SmemBytes(kConfig),
              "an FP8 stage is a bf16 stage's bytes");
// D: 0 bf16, 1 fp16 (out as in), 2 FP8 E4M3 (out bf16).
template <int D>
constexpr int kTileKOf = D == 2 ? sm90::kFp8TileK : kTileK;
static_assert(kTileK * 2 == 128 && kTmaBoxBCols * 2 == 128, "every smem row is one 128-byte swizzle row");
// Registers per thread after setmaxnreg: 128·40 + 256·232 = 64,512 of 65,536.
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536 && kProducerRegs % 8 == 0 && kConsumerRegs % 8 == 0,
              "setmaxnreg counts must fit the register file and be multiples of 8");

struct Sm90Params {
  uint16_t* c;
  int m, n, k, ldc;
  TileScheduler sched;
  ArrivalWait wait;         // all null: the plain GEMM
  ScatterEpilogue scatter;  // ranks 0: the plain epilogue into c
  Fp8Scales scales;         // FP8 only: c = *a · *b · (a·b)
};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The ring position shared by producer and consumers.
template <int N>
struct RingPos {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void Advance() {
    if (++stage == kStagesOf<N>) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

template <int D, int N>
__device__ __forceinline__ void Produce(const Sm90Params& p, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                        uint32_t a_ring, uint32_t b_ring, uint32_t full, uint32_t empty) {
  sm90::TmaPrefetchMap(map_a);
  sm90::TmaPrefetchMap(map_b);
  constexpr int kK = kTileKOf<D>;
  const int kblocks = (p.k + kK - 1) / kK;
  RingPos<N> pos;
  for (int64_t t = blockIdx.x; t < p.sched.total(); t += gridDim.x) {
    const TileCoord tile = p.sched.TileAt(TileToRun(p.wait, t));
    // An all-gather GEMM's tile waits for its rows of A (arrival_wait.h);
    // the flag was read through the generic proxy, and TMA reads through
    // the async one: the fence orders the rows' arrival before the loads.
    if (p.wait.flags != nullptr) {
      WaitForRows(p.wait, t);
      sm90::FenceProxyAsyncGlobal();
    }
    MarkTileStart(p.wait.times, t);
    for (int kb = 0; kb < kblocks; ++kb) {
      const uint32_t slot_full = full + 8u * uint32_t(pos.stage), slot_empty = empty + 8u * uint32_t(pos.stage);
      sm90::MbarWait(slot_empty, pos.phase ^ 1u);
      sm90::MbarArriveExpectTx(slot_full, uint32_t(kStageBytesOf<N>));
      const uint32_t a_dst = a_ring + uint32_t(pos.stage * kABytes),
                     b_dst = b_ring + uint32_t(pos.stage * kBBytesOf<N>);
      const int k0 = kb * kK;
      sm90::TmaLoad2d(a_dst, map_a, slot_full, k0, int(tile.row0));
      if constexpr (D == 2) {
        // bᵀ, K-major: one box of the tile's N rows × 128 bytes of K.
        sm90::TmaLoad2d(b_dst, map_b, slot_full, k0, int(tile.col0));
      } else {
        for (int box = 0; box < N / kTmaBoxBCols; ++box) {
          sm90::TmaLoad2d(b_dst + uint32_t(box * kBBoxBytes), map_b, slot_full, int(tile.col0) + box * kTmaBoxBCols,
                          k0);
        }
      }
      pos.Advance();
    }
  }
}

// Four k16 steps over one slot: this warpgroup's 64 rows of A (K-major)
// times the slot's B (MN-major), descriptors from sm90_layout.h; per step
// one wgmma per 128-column half of B (the wide tile has two).
// FP8: four k32 steps of 32 bytes, B K-major (sm90_layout.h).
template <int D, int N>
__device__ __forceinline__ void MmaSlot(float (&acc)[N / kTileN][64], uint32_t a_slot, int wg, uint32_t b_slot,
                                        bool first) {
  sm90::WgmmaFence();
#pragma unroll
  for (int kk = 0; kk < kTileK / 16; ++kk) {
    const uint64_t desc_a = sm90::ADescriptor(a_slot, wg, kk);
    const int scale_d = (first && kk == 0) ? 0 : 1;
#pragma unroll
    for (int h = 0; h < N / kTileN; ++h) {
      const uint32_t half = b_slot + uint32_t(h * kBHalfBytes);
      if constexpr (D == 2) {
        Wgmma128E4m3(acc[h], desc_a, sm90::BKMajorDescriptor(half, kk), scale_d);
      } else {
        Wgmma128<D>(acc[h], desc_a, sm90::BDescriptor(half, kk), scale_d);
      }
    }
  }
  sm90::WgmmaCommit();
}

// row0: the warpgroup's first row within the tile; col0: the accumulator
// half's first column (0 or 128); rows, cols: the tile's valid extent
// (TileCoord), the mask at ragged edges.
template <int D>
__device__ __forceinline__ void StoreTile(const TileOut& out, const float (&acc)[64], int row0, int col0, int rows,
                                          int cols, int t) {
  for (int i = 0; i < 64; i += 2) {
    const FragPos f = WgmmaAcc(t, i);
    const int row = row0 + f.row, col = col0 + f.col;
    // col is even and n a multiple of 8: the pair is whole or wholly out.
    if (row < rows && col < cols)
      *reinterpret_cast<uint32_t*>(out.first + int64_t(row) * out.ld + col) = PackOut<D>(acc[i], acc[i + 1]);
  }
}

template <int D, int N>
__device__ __forceinline__ void Consume(const Sm90Params& p, int wg, uint32_t a_ring, uint32_t b_ring, uint32_t full,
                                        uint32_t empty) {
  constexpr int kHalves = N / kTileN;
  const int t = int(threadIdx.x) % 128;
  const bool warp_leader = t % 32 == 0;
  const int kblocks = (p.k + kTileKOf<D> - 1) / kTileKOf<D>;
  // FP8: the per-tensor scales, written before the launch in stream order.
  float scale = 1.0f;
  if constexpr (D == 2) scale = *p.scales.a * *p.scales.b;
  RingPos<N> pos;
  float acc[kHalves][64] = {};  // overwritten by each tile's first wgmma (scale_d 0); zeroed so no read is undefined
  for (int64_t tile_index = blockIdx.x; tile_index < p.sched.total(); tile_index += gridDim.x) {
    const TileCoord tile = p.sched.TileAt(TileToRun(p.wait, tile_index));
    int prev_stage = -1;
    for (int kb = 0; kb < kblocks; ++kb) {
      sm90::MbarWait(full + 8u * uint32_t(pos.stage), pos.phase);
      MmaSlot<D, N>(acc, a_ring + uint32_t(pos.stage * kABytes), wg, b_ring + uint32_t(pos.stage * kBBytesOf<N>),
                    kb == 0);
      sm90::WgmmaWait<1>();
#pragma unroll
      for (int h = 0; h < kHalves; ++h) PinAccumulators(acc[h]);
      if (prev_stage >= 0 && warp_leader) sm90::MbarArrive(empty + 8u * uint32_t(prev_stage));
      prev_stage = pos.stage;
      pos.Advance();
    }
    sm90::WgmmaWait<0>();
#pragma unroll
    for (int h = 0; h < kHalves; ++h) PinAccumulators(acc[h]);
    if (warp_leader) sm90::MbarArrive(empty + 8u * uint32_t(prev_stage));
    const TileOut out = TileOutOf(p.scatter, p.sched, tile, p.c, p.ldc);
    if constexpr (D == 2) {
#pragma unroll
      for (int h = 0; h < kHalves; ++h) {
#pragma unroll
        for (int i = 0; i < 64; ++i) acc[h][i] *= scale;
      }
    }
    constexpr int kOut = D == 2 ? 0 : D;  // FP8 writes bf16
#pragma unroll
    for (int h = 0; h < kHalves; ++h)
      StoreTile<kOut>(out, acc[h], wg * 64, h * kTileN, int(tile.rows), int(tile.cols), t);
    if (out.counter != nullptr) {
      // The owner may read the tile once its counter rises: both consumer
      // warpgroups' stores must come first. A named barrier of the 256
      // consumer threads, not __syncthreads: the producer is in its own loop.
      sm90::NamedBarrierSync<kConsumerBarrier, 256>();
      if (threadIdx.x == 128) RaiseTileCounter(out.counter);
    }
    // The first consumer thread's stores stand for the tile's: the other
    // warpgroup ends its last wgmma at the same k-block (no barrier paid for a stamp).
    if (threadIdx.x == 128) MarkTileEnd(p.wait.times, tile_index);
  }
}

#endif  // sm_90a

template <int D, int N>
__global__ void __launch_bounds__(kThreads, 1)
    GemmSm90Kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, Sm90Params p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(16) uint8_t smem_raw[];
  // The 128B swizzle repeats every 1024 bytes and TMA and wgmma agree on it
  // only from a 1024-byte-aligned base: round up (the host budgeted the slack).
  const uint32_t base = (sm90::SmemAddr(smem_raw) + 1023u) & ~1023u;
  constexpr int kStages = kStagesOf<N>;
  const uint32_t a_ring = base, b_ring = base + uint32_t(kStages * kABytes);
  const uint32_t full = b_ring + uint32_t(kStages * kBBytesOf<N>), empty = full + 8u * kStages;
  const int wg = int(threadIdx.x) / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      sm90::MbarInit(full + 8u * uint32_t(s), 1);
      sm90::MbarInit(empty + 8u * uint32_t(s), kConsumerWarps);
    }
    sm90::FenceBarrierInit();
  }
  __syncthreads();  // the last block-wide barrier: the warpgroups part ways below
  if (wg == 0) {
    sm90::SetMaxRegDec<kProducerRegs>();
    if (threadIdx.x == 0) Produce<D, N>(p, &map_a, &map_b, a_ring, b_ring, full, empty);
  } else {
    sm90::SetMaxRegInc<kConsumerRegs>();
    Consume<D, N>(p, wg - 1, a_ring, b_ring, full, empty);
  }
#else
  (void)map_a;
  (void)map_b;
  (void)p;
#endif
}

}  // namespace

cudaError_t LaunchGemmSm90(const GemmPlan& plan, const CUtensorMap& a, const CUtensorMap& b, void* c, cudaStream_t s,
                           const ArrivalWait& wait, const ScatterEpilogue& scatter, const Fp8Scales& scales) {
  const GemmProblem& q = plan.problem;
  const Sm90Params p{
      static_cast<uint16_t*>(c), int(q.m), int(q.n), int(q.k), int(q.ldc), plan.scheduler, wait, scatter, scales};
  const bool wide = plan.config.tile_n == sm90::kWideTileN;
  auto kernel = q.dtype == DType::kFp8E4m3 ? (wide ? GemmSm90Kernel<2, 256> : GemmSm90Kernel<2, 128>)
                : q.dtype == DType::kBf16  ? (wide ? GemmSm90Kernel<0, 256> : GemmSm90Kernel<0, 128>)
                                           : (wide ? GemmSm90Kernel<1, 256> : GemmSm90Kernel<1, 128>);
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.smem_bytes));
  if (e != cudaSuccess) return e;
  kernel<<<plan.grid, plan.threads, size_t(plan.smem_bytes), s>>>(a, b, p);
  return cudaGetLastError();
}

}  // namespace braid::cuda::gemm
