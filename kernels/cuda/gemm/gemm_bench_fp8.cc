// braid_gemm_bench's FP8 part (sm_90a): each shape with E4M3 operands, as
// the cuda backend's FP8 cuBLASLt call takes them (a m×k, b stored as bᵀ
// n×k, per-tensor scales as device fp32 scalars, c bf16): the core's
// wgmma e4m3 path against cuBLASLt's FP8 matmul on the same bytes and
// scales, timed alike and compared like the bf16 rows.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "braid/fp8.h"
#include "gemm/gemm_bench_common.h"
#include "gemm/gemm_run.h"

namespace braid::cuda::gemm::bench {

bool BenchFp8Shape(const Shape& shape, const GemmDevice& device, BlasLtApi& blas, int warmup, int iters,
                   cudaStream_t s) {
  const size_t na = size_t(shape.m * shape.k), nb = size_t(shape.n * shape.k), nc = size_t(shape.m * shape.n);
  // Uniform in [-1, 1] quantized with a per-tensor scale that maps 1 to
  // E4M3's largest finite value (448): the scaling TransformerEngine applies.
  const float quant = Fp8Max(Fp8Format::kE4m3), dequant = 1.0f / quant;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> values(std::max(na, nb));
  std::vector<uint8_t> bytes(values.size());
  void *a = nullptr, *b = nullptr, *c = nullptr, *ref = nullptr, *scales = nullptr;
  BENCH_CHECK(Cuda(cudaMalloc(&a, na), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&b, nb), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&c, nc * 2), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&ref, nc * 2), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&scales, 2 * sizeof(float)), "cudaMalloc"));
  for (size_t i = 0; i < na; ++i) values[i] = u(rng);
  QuantizeFp8(Fp8Format::kE4m3, std::span<const float>(values.data(), na), quant, std::span<uint8_t>(bytes.data(), na));
  BENCH_CHECK(Cuda(cudaMemcpy(a, bytes.data(), na, cudaMemcpyHostToDevice), "cudaMemcpy"));
  for (size_t i = 0; i < nb; ++i) values[i] = u(rng);  // bᵀ, n rows of k
  QuantizeFp8(Fp8Format::kE4m3, std::span<const float>(values.data(), nb), quant, std::span<uint8_t>(bytes.data(), nb));
  BENCH_CHECK(Cuda(cudaMemcpy(b, bytes.data(), nb, cudaMemcpyHostToDevice), "cudaMemcpy"));
  const float host_scales[2] = {dequant, dequant};
  BENCH_CHECK(Cuda(cudaMemcpy(scales, host_scales, sizeof host_scales, cudaMemcpyHostToDevice), "cudaMemcpy"));
  const float* scale_a = static_cast<const float*>(scales);

  GemmProblem problem{shape.m, shape.n, shape.k, 0, 0, 0, DType::kFp8E4m3};
  MatmulArgs args = LtArgs(shape, a, b, ref, DType::kFp8E4m3);
  args.fp8.a_scale = const_cast<float*>(scale_a);
  args.fp8.b_scale = const_cast<float*>(scale_a + 1);
  const Fp8Scales core_scales{scale_a, scale_a + 1};
  auto* stream = reinterpret_cast<GpuStream>(s);
  const double core_ms =
      MedianMs([&] { return RunGemm(problem, device, a, b, c, s, {}, {}, core_scales); }, warmup, iters, s);
  const double lt_ms = MedianMs([&] { return blas.Matmul(args, stream); }, warmup, iters, s);
  std::vector<uint16_t> got(nc), want(nc);
  BENCH_CHECK(Cuda(cudaMemcpy(got.data(), c, nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  BENCH_CHECK(Cuda(cudaMemcpy(want.data(), ref, nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  for (void* p : {a, b, c, ref, scales}) (void)cudaFree(p);
  const double err = MaxRelError(got, want);
  const double flop = 2.0 * double(shape.m) * double(shape.n) * double(shape.k);
  const double core_tf = flop / (core_ms * 1e9), lt_tf = flop / (lt_ms * 1e9);
  const bool ok = err <= kMaxRelError;
  std::printf(
      "%-20s fp8_e4m3  core %8.1f TFLOP/s (%.3f ms)  cuBLASLt %8.1f TFLOP/s (%.3f ms)  %5.1f%%  max rel err %.2e "
      "%s\n",
      shape.name, core_tf, core_ms, lt_tf, lt_ms, 100.0 * core_tf / lt_tf, err, ok ? "ok" : "MISMATCH");
  return ok;
}

}  // namespace braid::cuda::gemm::bench
