// What braid_gemm_bench's parts share (gemm_bench.cc: the core and the
// all-gather order against cuBLASLt; gemm_bench_scatter.cc: the
// reduce-scatter GEMM; gemm_bench_fp8.cc: FP8 E4M3 on sm_90a): the shapes' type, bf16 conversion, CUDA errors as
// Status, the timing loop and the comparison.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "braid/blaslt_api.h"
#include "braid/status.h"
#include "gemm/gemm_plan.h"

namespace braid::cuda::gemm::bench {

struct Shape {
  const char* name;
  int64_t m, n, k;
};

constexpr double kMaxRelError = 2e-2;

inline uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);  // round to nearest even
}
inline float FromBf16(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

#define BENCH_CHECK(expr)                                                   \
  do {                                                                      \
    const ::braid::Status& s_ = (expr);                                     \
    if (!s_.ok()) {                                                         \
      std::fprintf(stderr, "braid_gemm_bench: %s\n", s_.message().c_str()); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

inline Status Cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::Ok();
  return Status::Internal(std::string(what) + ": " + cudaGetErrorString(e));
}

// Median milliseconds of `iters` timed runs of `run` after `warmup` untimed ones.
template <typename Run>
double MedianMs(Run run, int warmup, int iters, cudaStream_t s) {
  for (int i = 0; i < warmup; ++i) BENCH_CHECK(run());
  cudaEvent_t start, stop;
  BENCH_CHECK(Cuda(cudaEventCreate(&start), "cudaEventCreate"));
  BENCH_CHECK(Cuda(cudaEventCreate(&stop), "cudaEventCreate"));
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    BENCH_CHECK(Cuda(cudaEventRecord(start, s), "cudaEventRecord"));
    BENCH_CHECK(run());
    BENCH_CHECK(Cuda(cudaEventRecord(stop, s), "cudaEventRecord"));
    BENCH_CHECK(Cuda(cudaEventSynchronize(stop), "cudaEventSynchronize"));
    float t = 0;
    BENCH_CHECK(Cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime"));
    ms.push_back(double(t));
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The largest |got − want| over the largest |want| (normwise relative
// error); infinite when `got` holds a NaN or an infinity, which max() alone
// would pass over (a tile never written, or written from garbage).
inline double MaxRelError(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = FromBf16(got[i]), w = FromBf16(want[i]);
    if (!std::isfinite(g)) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::fabs(g - w));
    scale = std::max(scale, std::fabs(w));
  }
  return scale > 0 ? diff / scale : diff;
}

// The backend's cuBLASLt call for `shape` (row-major, dense; FP8: ldb = k,
// b stored as bᵀ), the reference every figure is compared with.
inline MatmulArgs LtArgs(const Shape& shape, void* a, void* b, void* c, DType dtype = DType::kBf16) {
  MatmulArgs args;
  args.m = shape.m;
  args.n = shape.n;
  args.k = shape.k;
  args.a = a;
  args.b = b;
  args.c = c;
  args.lda = shape.k;
  args.ldb = IsFp8(dtype) ? shape.k : shape.n;
  args.ldc = shape.n;
  args.dtype = dtype;
  return args;
}

// gemm_bench_scatter.cc: one line for `shape` as a reduce-scatter GEMM over
// `ranks` ranks simulated on this GPU; false when its result does not match.
bool BenchReduceScatter(const Shape& shape, const GemmDevice& device, BlasLtApi& blas, int ranks, int warmup, int iters,
                        cudaStream_t s);

// gemm_bench_fp8.cc: one line for `shape` with FP8 E4M3 operands (sm_90a):
// the core against cuBLASLt's FP8 matmul; false when they do not match.
bool BenchFp8Shape(const Shape& shape, const GemmDevice& device, BlasLtApi& blas, int warmup, int iters,
                   cudaStream_t s);

}  // namespace braid::cuda::gemm::bench
