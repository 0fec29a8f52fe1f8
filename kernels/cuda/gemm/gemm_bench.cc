// braid_gemm_bench: the GEMM core against cuBLASLt on this machine's GPU.
// For each shape: both on the same bf16 operands (uniform in [-1, 1]),
// `--warmup` untimed runs, then `--iters` runs each timed with CUDA events;
// the median of each, TFLOP/s (2·m·n·k per run), the core's share of
// cuBLASLt's rate, and the core's result checked against cuBLASLt's: the
// largest |core − cuBLASLt| over the largest |cuBLASLt| (normwise relative
// error; bf16 output rounding alone gives ~4e-3).
//
// Shapes: 8192³, and llama3-70b's four TP GEMMs per rank (catalog/models/
// llama3-70b.toml: hidden 8192, 64 heads and 8 KV heads of 128, ffn 28672,
// gated MLP; TP 8, 8192 tokens; column-parallel layers split N, row-parallel
// layers split K, as core/src/layer_workload.cc builds them):
//   qkv       m 8192  n (8192 + 2·1024)/8 = 1280   k 8192
//   out_proj  m 8192  n 8192                       k 8192/8 = 1024
//   fc1       m 8192  n 2·28672/8 = 7168           k 8192
//   fc2       m 8192  n 8192                       k 28672/8 = 3584
//
// Then the same GEMM as a fused all-gather GEMM's tiles run it (rank 0 of a
// ring of 8, arrival_wait.h): in arrival order, each tile waiting on its
// step's flag, every flag raised beforehand, so the figure is what the
// order and the waits cost, and its result must match cuBLASLt's too; then
// with the core's stamps per arrival step on (tile_times.h: two memsets and
// two atomics per tile, as --fused-engine core launches it), every step's
// stamps checked to be there.
//
// Then (gemm_bench_fp8.cc, sm_90a) every shape with FP8 E4M3 operands
// against cuBLASLt's FP8 matmul on the same bytes and scales.
//
// Then (gemm_bench_scatter.cc) out_proj and fc2, the row-parallel GEMMs
// whose partial sums a reduce-scatter adds up, as a reduce-scatter GEMM
// over `--rs-ranks` (default 8; 0 skips) ranks simulated on this GPU: each
// rank's GEMM scatters its tiles into the owners' receive slots and raises
// their counters, then each owner's reduce sums its block; checked against
// the sum of cuBLASLt's per-rank products.
//
// On sm_90a all of the above runs twice: with the 128x128 tile the fused
// plans launch, then with the wide 128x256 one (GemmDevice::tile_n 256,
// tile_config.h), whose lines say "wide"; which tile each shape should get
// is what the two sets of lines tell.
//
// Without a GPU: one line on stderr, exit 2. Exit 1 when a result does not
// match cuBLASLt (max rel error above 2e-2), else 0.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "braid/blaslt_api.h"
#include "gemm/arrival_tables.h"
#include "gemm/gemm_bench_common.h"
#include "gemm/gemm_run.h"
#include "real/real_seams.h"

namespace {

using braid::Status;
namespace gemm = braid::cuda::gemm;
using gemm::bench::BenchFp8Shape;
using gemm::bench::BenchReduceScatter;
using gemm::bench::Cuda;
using gemm::bench::kMaxRelError;
using gemm::bench::MaxRelError;
using gemm::bench::MedianMs;
using gemm::bench::Shape;
using gemm::bench::ToBf16;

constexpr Shape kShapes[] = {{"square", 8192, 8192, 8192},
                             {"llama3-70b.qkv", 8192, 1280, 8192},
                             {"llama3-70b.out_proj", 8192, 8192, 1024},
                             {"llama3-70b.fc1", 8192, 7168, 8192},
                             {"llama3-70b.fc2", 8192, 8192, 3584}};
// Device copies of the arrival tables for `problem` (ring of 8, rank 0) and
// their flags, all raised (epoch 1); `timed_out` host-mapped, as the wait's
// contract asks. Freed by the caller (FreeArrival).
struct ArrivalBuffers {
  gemm::ArrivalWait wait;
  void *order = nullptr, *step = nullptr, *flags = nullptr;
  void *first = nullptr, *last = nullptr;  // the stamps per arrival step (tile_times.h)
  size_t stamp_bytes = 0;
  uint32_t* timed_out_host = nullptr;
};

Status MakeArrival(const gemm::GemmProblem& problem, const gemm::GemmDevice& device, ArrivalBuffers* out) {
  auto plan = gemm::PlanGemm(problem, device);
  if (!plan.ok()) return plan.status();
  auto tables = gemm::ArrivalTablesFor(plan->scheduler, braid::Algorithm::kRing, 8, 0);
  if (!tables.ok()) return tables.status();
  const std::vector<uint32_t> raised(size_t(tables->steps), 1u);
  BRAID_RETURN_IF_ERROR(Cuda(cudaMalloc(&out->order, tables->order.size() * sizeof(int64_t)), "cudaMalloc"));
  BRAID_RETURN_IF_ERROR(Cuda(cudaMalloc(&out->step, tables->step.size() * sizeof(int32_t)), "cudaMalloc"));
  BRAID_RETURN_IF_ERROR(Cuda(cudaMalloc(&out->flags, raised.size() * sizeof(uint32_t)), "cudaMalloc"));
  BRAID_RETURN_IF_ERROR(
      Cuda(cudaMemcpy(out->order, tables->order.data(), tables->order.size() * sizeof(int64_t), cudaMemcpyHostToDevice),
           "cudaMemcpy"));
  BRAID_RETURN_IF_ERROR(
      Cuda(cudaMemcpy(out->step, tables->step.data(), tables->step.size() * sizeof(int32_t), cudaMemcpyHostToDevice),
           "cudaMemcpy"));
  BRAID_RETURN_IF_ERROR(Cuda(
      cudaMemcpy(out->flags, raised.data(), raised.size() * sizeof(uint32_t), cudaMemcpyHostToDevice), "cudaMemcpy"));
  void* mapped = nullptr;
  BRAID_RETURN_IF_ERROR(Cuda(cudaHostAlloc(&mapped, sizeof(uint32_t), cudaHostAllocMapped), "cudaHostAlloc"));
  out->timed_out_host = static_cast<uint32_t*>(mapped);
  *out->timed_out_host = 0;
  void* device_view = nullptr;
  BRAID_RETURN_IF_ERROR(Cuda(cudaHostGetDevicePointer(&device_view, mapped, 0), "cudaHostGetDevicePointer"));
  out->wait = {static_cast<const int64_t*>(out->order),
               static_cast<const int32_t*>(out->step),
               static_cast<const uint32_t*>(out->flags),
               1u,
               uint64_t(4'000'000'000),
               static_cast<uint32_t*>(device_view),
               {}};  // no stamps until StampedWait
  out->stamp_bytes = size_t(tables->steps) * sizeof(uint64_t);
  BRAID_RETURN_IF_ERROR(Cuda(cudaMalloc(&out->first, out->stamp_bytes), "cudaMalloc"));
  BRAID_RETURN_IF_ERROR(Cuda(cudaMalloc(&out->last, out->stamp_bytes), "cudaMalloc"));
  return Status::Ok();
}

// The same wait with the core's stamps per arrival step on (--fused-engine
// core's launches): what the two atomics per tile cost.
gemm::ArrivalWait StampedWait(const ArrivalBuffers& b) {
  gemm::ArrivalWait w = b.wait;
  w.times.group = static_cast<const int32_t*>(b.step);
  w.times.first_start = static_cast<uint64_t*>(b.first);
  w.times.last_end = static_cast<uint64_t*>(b.last);
  return w;
}

// A stamped launch as the cuda backend issues it: both resets, then the GEMM.
Status RunStamped(const gemm::GemmProblem& problem, const gemm::GemmDevice& device, const void* a, const void* b,
                  void* c, cudaStream_t s, const ArrivalBuffers& arrival) {
  BRAID_RETURN_IF_ERROR(Cuda(cudaMemsetAsync(arrival.first, 0xFF, arrival.stamp_bytes, s), "cudaMemsetAsync"));
  BRAID_RETURN_IF_ERROR(Cuda(cudaMemsetAsync(arrival.last, 0, arrival.stamp_bytes, s), "cudaMemsetAsync"));
  return gemm::RunGemm(problem, device, a, b, c, s, StampedWait(arrival));
}

void FreeArrival(ArrivalBuffers& b) {
  for (void* p : {b.order, b.step, b.flags, b.first, b.last}) (void)cudaFree(p);
  if (b.timed_out_host != nullptr) (void)cudaFreeHost(b.timed_out_host);
}

// One line for the shape; false when the result does not match.
bool BenchShape(const Shape& shape, const gemm::GemmDevice& device, braid::cuda::BlasLtApi& blas, int warmup, int iters,
                cudaStream_t s) {
  const size_t na = size_t(shape.m * shape.k), nb = size_t(shape.k * shape.n), nc = size_t(shape.m * shape.n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> host(std::max(na, nb));
  void *a = nullptr, *b = nullptr, *c = nullptr, *ref = nullptr;
  BENCH_CHECK(Cuda(cudaMalloc(&a, na * 2), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&b, nb * 2), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&c, nc * 2), "cudaMalloc"));
  BENCH_CHECK(Cuda(cudaMalloc(&ref, nc * 2), "cudaMalloc"));
  for (size_t i = 0; i < na; ++i) host[i] = ToBf16(u(rng));
  BENCH_CHECK(Cuda(cudaMemcpy(a, host.data(), na * 2, cudaMemcpyHostToDevice), "cudaMemcpy"));
  for (size_t i = 0; i < nb; ++i) host[i] = ToBf16(u(rng));
  BENCH_CHECK(Cuda(cudaMemcpy(b, host.data(), nb * 2, cudaMemcpyHostToDevice), "cudaMemcpy"));

  const gemm::GemmProblem problem{shape.m, shape.n, shape.k, 0, 0, 0, braid::DType::kBf16};
  const braid::cuda::MatmulArgs args = gemm::bench::LtArgs(shape, a, b, ref);
  auto* stream = reinterpret_cast<braid::cuda::GpuStream>(s);
  const double core_ms = MedianMs([&] { return gemm::RunGemm(problem, device, a, b, c, s); }, warmup, iters, s);
  const double lt_ms = MedianMs([&] { return blas.Matmul(args, stream); }, warmup, iters, s);
  std::vector<uint16_t> got(nc), want(nc), arrived(nc);
  BENCH_CHECK(Cuda(cudaMemcpy(got.data(), c, nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  BENCH_CHECK(Cuda(cudaMemcpy(want.data(), ref, nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  ArrivalBuffers arrival;
  BENCH_CHECK(MakeArrival(problem, device, &arrival));
  BENCH_CHECK(Cuda(cudaMemset(c, 0, nc * 2), "cudaMemset"));
  const double arrival_ms =
      MedianMs([&] { return gemm::RunGemm(problem, device, a, b, c, s, arrival.wait); }, warmup, iters, s);
  BENCH_CHECK(Cuda(cudaMemcpy(arrived.data(), c, nc * 2, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  const double stamped_ms =
      MedianMs([&] { return RunStamped(problem, device, a, b, c, s, arrival); }, warmup, iters, s);
  std::vector<uint64_t> first(arrival.stamp_bytes / 8), last(first.size());
  BENCH_CHECK(Cuda(cudaMemcpy(first.data(), arrival.first, arrival.stamp_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  BENCH_CHECK(Cuda(cudaMemcpy(last.data(), arrival.last, arrival.stamp_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"));
  FreeArrival(arrival);
  // Every arrival step's tiles stamped, first before last, within a launch's time.
  bool stamps_ok = !first.empty();
  for (size_t g = 0; g < first.size(); ++g)
    stamps_ok = stamps_ok && first[g] <= last[g] && double(last[g] - first[g]) <= stamped_ms * 1e6 * 1.5;
  for (void* p : {a, b, c, ref}) (void)cudaFree(p);
  const double err = MaxRelError(got, want), arrival_err = MaxRelError(arrived, want);
  const double flop = 2.0 * double(shape.m) * double(shape.n) * double(shape.k);
  const double core_tf = flop / (core_ms * 1e9), lt_tf = flop / (lt_ms * 1e9);
  const bool ok = err <= kMaxRelError && arrival_err <= kMaxRelError && stamps_ok;
  std::printf(
      "%-20s m=%-6lld n=%-6lld k=%-6lld core %8.1f TFLOP/s (%.3f ms)  cuBLASLt %8.1f TFLOP/s (%.3f ms)  %5.1f%%  "
      "max rel err %.2e  arrival order %.3f ms (%.1f%% of the core's time) err %.2e  stamped %.3f ms (%.1f%%)%s %s\n",
      shape.name, (long long)shape.m, (long long)shape.n, (long long)shape.k, core_tf, core_ms, lt_tf, lt_ms,
      100.0 * core_tf / lt_tf, err, arrival_ms, 100.0 * arrival_ms / core_ms, arrival_err, stamped_ms,
      100.0 * stamped_ms / core_ms, stamps_ok ? "" : " (stamps missing)", ok ? "ok" : "MISMATCH");
  return ok;
}

int IntFlag(int argc, char** argv, const char* name, int fallback, int least = 1) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::max(least, std::atoi(argv[i + 1]));
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "braid_gemm_bench: no CUDA GPU here (%s)\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 2;
  }
  const int warmup = IntFlag(argc, argv, "--warmup", 5), iters = IntFlag(argc, argv, "--iters", 20);
  const int rs_ranks = IntFlag(argc, argv, "--rs-ranks", 8, 0);
  auto device = gemm::CurrentGemmDevice();
  if (!device.ok()) {
    std::fprintf(stderr, "braid_gemm_bench: %s\n", device.status().message().c_str());
    return 2;
  }
  auto blas = braid::cuda::MakeRealBlasLt();
  if (!blas.ok()) {
    std::fprintf(stderr, "braid_gemm_bench: %s\n", blas.status().message().c_str());
    return 2;
  }
  cudaStream_t s = nullptr;
  BENCH_CHECK(Cuda(cudaStreamCreate(&s), "cudaStreamCreate"));
  std::printf("braid_gemm_bench: %s kernel, %d SMs, bf16, median of %d after %d warm-up runs\n",
              gemm::GemmArchName(device->arch), device->num_sms, iters, warmup);
  bool all_ok = true;
  std::vector<int> widths = {128};
  if (device->arch == gemm::GemmArch::kSm90a) widths.push_back(256);
  for (int width : widths) {
    gemm::GemmDevice tiles = *device;
    tiles.tile_n = width;
    std::printf("%s tile 128x%d%s\n", gemm::GemmArchName(device->arch), width, width == 256 ? " (wide)" : "");
    for (const Shape& shape : kShapes) all_ok = BenchShape(shape, tiles, **blas, warmup, iters, s) && all_ok;
    if (device->arch == gemm::GemmArch::kSm90a) {
      for (const Shape& shape : kShapes) all_ok = BenchFp8Shape(shape, tiles, **blas, warmup, iters, s) && all_ok;
    } else {
      std::printf("fp8_e4m3: skipped (the core's FP8 path is sm_90a's)\n");
    }
    if (rs_ranks > 0)
      for (const Shape& shape : kShapes)
        if (std::strcmp(shape.name, "llama3-70b.out_proj") == 0 || std::strcmp(shape.name, "llama3-70b.fc2") == 0)
          all_ok = BenchReduceScatter(shape, tiles, **blas, rs_ranks, warmup, iters, s) && all_ok;
  }
  (void)cudaStreamDestroy(s);
  return all_ok ? 0 : 1;
}
