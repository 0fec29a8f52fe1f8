// The GEMM core on sm_80 (A100; also what sm_89 and sm_90 fall back to if
// asked): c = a·b, bf16/fp16 in, fp32 accumulate, bf16/fp16 out.
//
// Pipeline of one CTA (256 threads, 8 warps as 2 × 4), persistent over the
// tile scheduler (tile_scheduler.h):
//  1. cp.async.cg ring of kStages (A 128×32 and B 32×128 per stage). Why: the
//     copies go global → shared without passing through registers, and with
//     several stages in flight the load of k-block kb + 3 overlaps the math
//     of k-block kb. Out-of-bounds 16-byte chunks are zero-filled (src-size
//     0), which is how ragged M, N and K edges need no separate path.
//  2. Shared memory is XOR-swizzled (smem_swizzle.h kSm80A / kSm80B). Why:
//     ldmatrix reads eight 16-byte rows per phase; unswizzled, the 64-byte A
//     rows and 256-byte B rows put those on the same banks.
//  3. ldmatrix.x4 (A) and ldmatrix.x4.trans (B, stored N-contiguous) load
//     the operands straight into mma.sync.m16n8k16's fragment layout. Why:
//     one instruction per 16×16 piece instead of eight scalar loads, and
//     .trans turns row-major B into the "col" operand mma wants.
//  4. Each warp accumulates 64×32 of the tile in fp32 registers (4 × 4 mma
//     tiles); the epilogue converts pairs to bf16x2/half2 and stores them
//     straight to global, masked at ragged edges: into c, or (a reduce-
//     scatter GEMM, scatter_epilogue.h) into the tile's owner's slot for
//     this rank, after which one thread raises the owner's tile counter.
// Not yet run on a GPU: correctness and speed are for braid_gemm_bench on one.
#include <cstdint>

#include "gemm/arrival_wait.cuh"
#include "gemm/fragment_layout.h"
#include "gemm/gemm_device_common.cuh"
#include "gemm/gemm_kernels.h"
#include "gemm/scatter_epilogue.cuh"
#include "gemm/sm80_layout.h"
#include "gemm/tile_scheduler.h"

namespace braid::cuda::gemm {

namespace {

constexpr TileConfig kConfig = TileConfigFor(GemmArch::kSm80);
using sm80::kARowBytes;
using sm80::kBRowBytes;
using sm80::kChunksPerThread;
using sm80::kThreads;
using sm80::kTileK;
using sm80::kTileM;
using sm80::kTileN;
constexpr int kStages = 4;
static_assert(kConfig.tile_m == kTileM && kConfig.tile_n == kTileN && kConfig.tile_k == kTileK &&
                  kConfig.stages == kStages && kConfig.threads == kThreads,
              "the kernel is written for TileConfigFor(kSm80)");
constexpr int kAStageBytes = kTileM * kARowBytes;  // 8 KiB
constexpr int kBStageBytes = kTileK * kBRowBytes;  // 8 KiB
static_assert(kChunksPerThread == 2, "the load loop below issues two chunks of each operand per thread");
static_assert(int64_t(kStages) * (kAStageBytes + kBStageBytes) + 1024 == SmemBytes(kConfig),
              "the ring must be what the host budgeted");

struct Sm80Params {
  const uint16_t* a;
  const uint16_t* b;
  uint16_t* c;
  int m, n, k, lda, ldb, ldc;
  TileScheduler sched;
  ArrivalWait wait;         // all null: the plain GEMM
  ScatterEpilogue scatter;  // ranks 0: the plain epilogue into c
};

__device__ __forceinline__ uint32_t SmemAddr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// 16 bytes global → shared, or 16 zero bytes when !valid (src-size 0; src
// must still be a valid address, so the caller passes the matrix base).
__device__ __forceinline__ void CpAsync16(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0) : "memory");
}
__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void LdMatrixX4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void LdMatrixX4Trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

template <int D>
__device__ __forceinline__ void Mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (D == 0) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Issues stage `slot`'s copies of k-block `kb` of the tile at (row0, col0):
// every thread two 16-byte chunks of A and two of B.
__device__ __forceinline__ void LoadStage(const Sm80Params& p, uint32_t a_smem, uint32_t b_smem, int row0, int col0,
                                          int kb) {
  const int k0 = kb * kTileK;
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int e = int(threadIdx.x) + i * kThreads;
    const sm80::Cell ac = sm80::AChunk(e), bc = sm80::BChunk(e);
    const bool a_ok = row0 + ac.row < p.m && k0 + ac.col < p.k;
    const uint16_t* a_src = a_ok ? p.a + int64_t(row0 + ac.row) * p.lda + k0 + ac.col : p.a;
    CpAsync16(a_smem + sm80::AOffset(ac.row, ac.col), a_src, a_ok);
    const bool b_ok = k0 + bc.row < p.k && col0 + bc.col < p.n;
    const uint16_t* b_src = b_ok ? p.b + int64_t(k0 + bc.row) * p.ldb + col0 + bc.col : p.b;
    CpAsync16(b_smem + sm80::BOffset(bc.row, bc.col), b_src, b_ok);
  }
}

// One k-block of the warp's 64×32: two k16 steps of 4 × 4 mma tiles.
template <int D>
__device__ __forceinline__ void ComputeStage(float (&acc)[4][4][4], uint32_t a_smem, uint32_t b_smem, int warp_m,
                                             int warp_n, int lane) {
  for (int ks = 0; ks < kTileK / 16; ++ks) {
    uint32_t af[4][4], bf[2][4];
    for (int mi = 0; mi < 4; ++mi) {
      const sm80::Cell c = sm80::ALdmatrixRow(warp_m, mi, ks, lane);
      LdMatrixX4(af[mi], a_smem + sm80::AOffset(c.row, c.col));
    }
    for (int nj = 0; nj < 2; ++nj) {
      const sm80::Cell c = sm80::BLdmatrixRow(warp_n, nj, ks, lane);
      LdMatrixX4Trans(bf[nj], b_smem + sm80::BOffset(c.row, c.col));
    }
    for (int mi = 0; mi < 4; ++mi)
      for (int ni = 0; ni < 4; ++ni)
        Mma16816<D>(acc[mi][ni], af[mi], bf[ni / 2][(ni % 2) * 2], bf[ni / 2][(ni % 2) * 2 + 1]);
  }
}

// rows, cols: the tile's valid extent (TileCoord), the mask at ragged edges.
template <int D>
__device__ __forceinline__ void StoreTile(const TileOut& out, const float (&acc)[4][4][4], int rows, int cols,
                                          int warp_m, int warp_n, int lane) {
  for (int mi = 0; mi < 4; ++mi)
    for (int ni = 0; ni < 4; ++ni)
      for (int half = 0; half < 2; ++half) {
        const FragPos f = Mma16816Acc(lane, half * 2);
        const int row = warp_m * 64 + mi * 16 + f.row, col = warp_n * 32 + ni * 8 + f.col;
        // col is even and n a multiple of 8, so the pair is whole or wholly out.
        if (row < rows && col < cols)
          *reinterpret_cast<uint32_t*>(out.first + int64_t(row) * out.ld + col) =
              PackOut<D>(acc[mi][ni][half * 2], acc[mi][ni][half * 2 + 1]);
      }
}

template <int D>
__global__ void __launch_bounds__(kThreads, 1) GemmSm80Kernel(Sm80Params p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) uint8_t smem_raw[];
  const uint32_t raw = SmemAddr(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;  // the host budgeted 1024 bytes of slack
  const uint32_t a_ring = base, b_ring = base + kStages * kAStageBytes;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int warp_m = warp / 4, warp_n = warp % 4;
  const int kblocks = (p.k + kTileK - 1) / kTileK;
  for (int64_t t = blockIdx.x; t < p.sched.total(); t += gridDim.x) {
    const TileCoord tile = p.sched.TileAt(TileToRun(p.wait, t));
    const int row0 = int(tile.row0), col0 = int(tile.col0);
    // An all-gather GEMM's tile waits for its rows of A before any copy
    // reads them (arrival_wait.h); thread 0 waits, the barrier holds the rest.
    if (p.wait.flags != nullptr) {
      if (threadIdx.x == 0) WaitForRows(p.wait, t);
      __syncthreads();
    }
    if (threadIdx.x == 0) MarkTileStart(p.wait.times, t);
    // Prologue: stages 0..kStages-2 in flight before any math. A group is
    // committed even when empty so that wait_group counts stay uniform.
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < kblocks) LoadStage(p, a_ring + s * kAStageBytes, b_ring + s * kBStageBytes, row0, col0, s);
      CpAsyncCommit();
    }
    float acc[4][4][4] = {};
    for (int kb = 0; kb < kblocks; ++kb) {
      // k-block kb has landed once at most kStages-2 younger groups are pending;
      // the barrier also says every warp is done with the slot refilled below
      // (it held k-block kb-1).
      CpAsyncWait<kStages - 2>();
      __syncthreads();
      const int next = kb + kStages - 1;
      if (next < kblocks) {
        const int slot = next % kStages;
        LoadStage(p, a_ring + slot * kAStageBytes, b_ring + slot * kBStageBytes, row0, col0, next);
      }
      CpAsyncCommit();
      const int slot = kb % kStages;
      ComputeStage<D>(acc, a_ring + slot * kAStageBytes, b_ring + slot * kBStageBytes, warp_m, warp_n, lane);
    }
    // Drain before the next tile's prologue overwrites the ring.
    CpAsyncWait<0>();
    __syncthreads();
    const TileOut out = TileOutOf(p.scatter, p.sched, tile, p.c, p.ldc);
    StoreTile<D>(out, acc, int(tile.rows), int(tile.cols), warp_m, warp_n, lane);
    if (out.counter != nullptr) {
      // The owner may read the tile once its counter rises: every thread's
      // stores must come first, hence the barrier before the one raise.
      __syncthreads();
      if (threadIdx.x == 0) RaiseTileCounter(out.counter);
    }
    // Thread 0's stores stand for the tile's (every warp left the same last
    // k-block's barrier; no barrier paid for a stamp).
    if (threadIdx.x == 0) MarkTileEnd(p.wait.times, t);
  }
#else
  (void)p;
#endif
}

}  // namespace

cudaError_t LaunchGemmSm80(const GemmPlan& plan, const void* a, const void* b, void* c, cudaStream_t s,
                           const ArrivalWait& wait, const ScatterEpilogue& scatter) {
  const GemmProblem& q = plan.problem;
  const Sm80Params p{static_cast<const uint16_t*>(a),
                     static_cast<const uint16_t*>(b),
                     static_cast<uint16_t*>(c),
                     int(q.m),
                     int(q.n),
                     int(q.k),
                     int(q.lda),
                     int(q.ldb),
                     int(q.ldc),
                     plan.scheduler,
                     wait,
                     scatter};
  auto kernel = q.dtype == DType::kBf16 ? GemmSm80Kernel<0> : GemmSm80Kernel<1>;
  // Above 48 KiB of dynamic shared memory a kernel must opt in.
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.smem_bytes));
  if (e != cudaSuccess) return e;
  kernel<<<plan.grid, plan.threads, size_t(plan.smem_bytes), s>>>(p);
  return cudaGetLastError();
}

}  // namespace braid::cuda::gemm
