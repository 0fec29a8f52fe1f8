// The fused P2P+GEMM kernel: one persistent kernel per rank that runs the
// tables of fused_schedule.h. Every CTA walks its task list; before a task,
// thread 0 waits for the task's flags (ld.acquire.sys, bounded by
// launch.timeout_ns on %globaltimer; a timeout writes the FusedError record
// and every CTA stops); after it, thread 0 raises the task's flag
// (__threadfence_system + st.release.sys). Comm CTAs pull rows of A from peers
// (ag_gemm) or sum the peers' partial tiles (gemm_rs) through peer pointers;
// compute CTAs run a 64x64x32 tile loop of mma.sync.m16n8k16 (bf16/fp16 in,
// fp32 accumulate), zero-padding ragged tiles. sm_90 runs the same mma.sync
// path (no wgmma/TMA yet). Simple and correct before fast: loads are scalar
// into shared memory, no double buffering. It has never run on a GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "fused/fused_kernel.h"
#include "gemm/bounded_wait.cuh"

namespace braid::cuda::fused {

namespace {

static_assert(kThreads == 128 && kTileM == 64 && kTileN == 64 && kTileK % 16 == 0,
              "the warp layout below is 2x2 warps of 32x32");
constexpr int kPad = 8;  // shared-memory row padding, in elements

__device__ __forceinline__ void StoreReleaseSys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// D: 0 bf16, 1 fp16. Elements travel as raw 16-bit patterns.
template <int D>
__device__ __forceinline__ float ToFloat(uint16_t u) {
  if constexpr (D == 0) {
    return __bfloat162float(__ushort_as_bfloat16(u));
  } else {
    return __half2float(__ushort_as_half(u));
  }
}

template <int D>
__device__ __forceinline__ uint16_t FromFloat(float v) {
  if constexpr (D == 0) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  } else {
    return __half_as_ushort(__float2half_rn(v));
  }
}

__device__ __forceinline__ uint32_t Pack(uint16_t lo, uint16_t hi) { return uint32_t(lo) | (uint32_t(hi) << 16); }

template <int D>
__device__ __forceinline__ void Mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (D == 0) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#endif
}

// Thread 0: records the first timeout of the whole kernel (the host reads it).
__device__ void Report(const FusedLaunch& p, const FusedTask& t, int task, FlagRef f) {
  if (atomicCAS(&p.error->code, 0u, 1u) != 0u) return;
  p.error->rank = p.rank;
  p.error->task = task;
  p.error->flag_rank = f.rank;
  p.error->flag_index = f.index;
  p.error->row0 = t.row0;
  p.error->col0 = t.col0;
  __threadfence_system();
}

// Thread 0: true once every flag of `t` holds the epoch; false on a timeout
// (recorded) or when another CTA already failed.
__device__ bool WaitFlags(const FusedLaunch& p, const FusedTask& t, int task) {
  const uint64_t start = gemm::GlobalTimerNs();
  for (int w = 0; w < t.wait_count; ++w) {
    const FlagRef f = p.waits[t.wait_begin + w];
    const uint32_t* flag = p.flags[f.rank] + f.index;
    uint32_t spins = 0;
    while (gemm::LoadAcquireSys(flag) < p.epoch) {
      if ((++spins & 63u) == 0) {
        if (*reinterpret_cast<volatile uint32_t*>(&p.error->code) != 0) return false;
        if (gemm::GlobalTimerNs() - start > p.timeout_ns) {
          Report(p, t, task, f);
          return false;
        }
      }
      __nanosleep(64);
    }
  }
  return true;
}

// c tile = a[row0.., :] · b[:, col0..] of the rank's own GEMM.
template <int D>
__device__ void GemmTile(const FusedLaunch& p, const FusedTask& t, uint16_t (*as)[kTileK + kPad],
                         uint16_t (*bs)[kTileN + kPad]) {
  const uint16_t* a = static_cast<const uint16_t*>(p.a[p.rank]);
  const uint16_t* b = static_cast<const uint16_t*>(p.b);
  uint16_t* c = static_cast<uint16_t*>(p.op == 0 ? p.out : p.partial[p.rank]);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  const int g = lane >> 2, tq = lane & 3;
  float acc[2][4][4] = {};
  for (int k0 = 0; k0 < p.k; k0 += kTileK) {
    for (int e = int(threadIdx.x); e < kTileM * kTileK; e += kThreads) {
      const int r = e / kTileK, kk = e % kTileK;
      as[r][kk] = (r < t.rows && k0 + kk < p.k) ? a[size_t(t.row0 + r) * size_t(p.k) + size_t(k0 + kk)] : 0;
    }
    for (int e = int(threadIdx.x); e < kTileK * kTileN; e += kThreads) {
      const int kk = e / kTileN, cc = e % kTileN;
      bs[kk][cc] = (k0 + kk < p.k && cc < t.cols) ? b[size_t(k0 + kk) * size_t(p.n) + size_t(t.col0 + cc)] : 0;
    }
    __syncthreads();
    for (int ks = 0; ks < kTileK; ks += 16) {
      uint32_t af[2][4], bf[4][2];
      for (int mi = 0; mi < 2; ++mi) {
        const int r = wm + mi * 16 + g, k = ks + tq * 2;
        af[mi][0] = Pack(as[r][k], as[r][k + 1]);
        af[mi][1] = Pack(as[r + 8][k], as[r + 8][k + 1]);
        af[mi][2] = Pack(as[r][k + 8], as[r][k + 9]);
        af[mi][3] = Pack(as[r + 8][k + 8], as[r + 8][k + 9]);
      }
      for (int ni = 0; ni < 4; ++ni) {
        const int col = wn + ni * 8 + g, k = ks + tq * 2;
        bf[ni][0] = Pack(bs[k][col], bs[k + 1][col]);
        bf[ni][1] = Pack(bs[k + 8][col], bs[k + 9][col]);
      }
      for (int mi = 0; mi < 2; ++mi) {
        for (int ni = 0; ni < 4; ++ni) Mma<D>(acc[mi][ni], af[mi], bf[ni]);
      }
    }
    __syncthreads();
  }
  for (int mi = 0; mi < 2; ++mi) {
    for (int ni = 0; ni < 4; ++ni) {
      for (int h = 0; h < 2; ++h) {
        for (int e = 0; e < 2; ++e) {
          const int r = wm + mi * 16 + g + h * 8, col = wn + ni * 8 + tq * 2 + e;
          if (r < t.rows && col < t.cols) {
            c[size_t(t.row0 + r) * size_t(p.n) + size_t(t.col0 + col)] = FromFloat<D>(acc[mi][ni][h * 2 + e]);
          }
        }
      }
    }
  }
}

// ag_gemm: rows row0.. of rank src's A (its own block, an input) into ours.
__device__ void PullRows(const FusedLaunch& p, const FusedTask& t) {
  const size_t off = size_t(t.row0) * size_t(p.k) * 2, bytes = size_t(t.rows) * size_t(p.k) * 2;
  const char* src = static_cast<const char*>(p.a[t.src]) + off;
  char* dst = static_cast<char*>(p.a[p.rank]) + off;
  if (((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst) | bytes) & 15u) == 0) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    for (size_t i = threadIdx.x; i < bytes / 16; i += kThreads) d[i] = s[i];
  } else {
    const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
    uint16_t* d = reinterpret_cast<uint16_t*>(dst);
    for (size_t i = threadIdx.x; i < bytes / 2; i += kThreads) d[i] = s[i];
  }
}

// gemm_rs: out tile = Σ over ranks of their partial tile (peer reads, not cached).
template <int D>
__device__ void ReduceTile(const FusedLaunch& p, const FusedTask& t) {
  uint16_t* out = static_cast<uint16_t*>(p.out);
  const int mb = p.m / p.ranks;
  for (int e = int(threadIdx.x); e < t.rows * t.cols; e += kThreads) {
    const int r = e / t.cols, col = e % t.cols;
    const size_t at = size_t(t.row0 + r) * size_t(p.n) + size_t(t.col0 + col);
    float sum = 0;
    for (int q = 0; q < p.ranks; ++q) sum += ToFloat<D>(__ldcv(static_cast<const unsigned short*>(p.partial[q]) + at));
    out[size_t(t.row0 - p.rank * mb + r) * size_t(p.n) + size_t(t.col0 + col)] = FromFloat<D>(sum);
  }
}

template <int D>
__global__ void __launch_bounds__(kThreads) FusedKernel(const FusedLaunch p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __shared__ uint16_t as[kTileM][kTileK + kPad];
  __shared__ uint16_t bs[kTileK][kTileN + kPad];
  __shared__ int stop;
  const int begin = p.cta_begin[blockIdx.x], end = p.cta_begin[blockIdx.x + 1];
  for (int i = begin; i < end; ++i) {
    const FusedTask t = p.tasks[i];
    if (threadIdx.x == 0) stop = WaitFlags(p, t, i) ? 0 : 1;
    __syncthreads();
    if (stop != 0) return;
    if (t.kind == kGemmTile) {
      GemmTile<D>(p, t, as, bs);
    } else if (t.kind == kPullRows) {
      PullRows(p, t);
    } else {
      ReduceTile<D>(p, t);
    }
    __syncthreads();  // the whole task's writes before the flag
    if (threadIdx.x == 0 && t.sets >= 0 && t.sets != p.never_set_flag) {
      __threadfence_system();
      StoreReleaseSys(p.flags[p.rank] + t.sets, p.epoch);
    }
  }
#endif
}

}  // namespace

cudaError_t FusedKernelCapacity(int dtype, int* ctas) {
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) {
    e = dtype == 1 ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, FusedKernel<1>, kThreads, 0)
                   : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, FusedKernel<0>, kThreads, 0);
  }
  *ctas = sms * per_sm;
  return e;
}

cudaError_t LaunchFusedKernel(const FusedLaunch& launch, cudaStream_t s) {
  if (launch.ctas <= 0 || launch.tasks == nullptr || launch.error == nullptr) return cudaErrorInvalidValue;
  if (launch.dtype == 1) {
    FusedKernel<1><<<unsigned(launch.ctas), kThreads, 0, s>>>(launch);
  } else {
    FusedKernel<0><<<unsigned(launch.ctas), kThreads, 0, s>>>(launch);
  }
  return cudaGetLastError();
}

}  // namespace braid::cuda::fused
