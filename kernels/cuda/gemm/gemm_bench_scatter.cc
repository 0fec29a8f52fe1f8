// braid_gemm_bench's reduce-scatter part: one GEMM as a reduce-scatter GEMM
// over P ranks simulated on this one GPU (scatter_epilogue.h,
// partial_reduce.h). Rank r has its own A shard (m × k) and B; owner q's
// block is Σ_r (A_r·B)[q-th m/P rows]. Every owner's receive buffer and
// counters live on this device, so the "peer pointers" are local ones.
//
// Per shape: P plain GEMMs (the baseline), the P scatter GEMMs (ranks
// 0..P-1 in turn, each handing its tiles out in ScatterTables.order), and
// the P owners' reduces, each timed as a median of a batch; then one round
// of all of them into receive buffers filled with NaN, compared with the
// fp32 sum of cuBLASLt's P products rounded to bf16. The GEMMs and reduces
// run in stream order, so the reduces never wait here: the figure is what
// the scatter stores and the reduce cost, not the overlap of a real run.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "gemm/gemm_bench_common.h"
#include "gemm/gemm_run.h"
#include "gemm/partial_reduce.h"
#include "gemm/scatter_tables.h"

namespace braid::cuda::gemm::bench {

namespace {

constexpr int kReduceCtas = 16;  // per owner: what a reduce beside the GEMM could take of the SMs
constexpr uint64_t kTimeoutNs = 4'000'000'000;

// Device memory of one simulated reduce-scatter; freed by the destructor.
struct ScatterRig {
  int ranks = 0;
  std::vector<void*> a;                // per rank: m × k
  void* b = nullptr;                   // k × n, shared by the ranks
  void* c = nullptr;                   // m × n: the plain GEMMs' output, and cuBLASLt's
  std::vector<void*> recv;             // per owner: ranks slots of block_rows × n
  std::vector<uint32_t*> counters;     // per owner: tiles_per_block
  std::vector<int64_t*> orders;        // per rank: ScatterTables.order
  void* out = nullptr;                 // m × n: owner q's block at rows q·block_rows
  uint32_t* timed_out_host = nullptr;  // host-mapped, shared by every reduce
  uint32_t* timed_out_device = nullptr;
  ~ScatterRig() {
    for (void* p : a) (void)cudaFree(p);
    for (void* p : recv) (void)cudaFree(p);
    for (uint32_t* p : counters) (void)cudaFree(p);
    for (int64_t* p : orders) (void)cudaFree(p);
    for (void* p : {b, c, out}) (void)cudaFree(p);
    if (timed_out_host != nullptr) (void)cudaFreeHost(timed_out_host);
  }
};

template <typename T>
Status Alloc(T** p, size_t bytes) {
  void* v = nullptr;
  BRAID_RETURN_IF_ERROR(Cuda(cudaMalloc(&v, bytes), "cudaMalloc"));
  *p = static_cast<T*>(v);
  return Status::Ok();
}

Status Upload(void* dst, const void* src, size_t bytes) {
  return Cuda(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
}

Status Download(std::vector<uint16_t>* dst, const void* src) {
  return Cuda(cudaMemcpy(dst->data(), src, dst->size() * 2, cudaMemcpyDeviceToHost), "cudaMemcpy");
}

}  // namespace

bool BenchReduceScatter(const Shape& shape, const GemmDevice& device, BlasLtApi& blas, int ranks, int warmup, int iters,
                        cudaStream_t s) {
  const GemmProblem problem{shape.m, shape.n, shape.k, 0, 0, 0, DType::kBf16};
  auto plan = PlanGemm(problem, device);
  BENCH_CHECK(plan.status());
  std::vector<ScatterTables> tables;
  for (int r = 0; r < ranks; ++r) {
    auto t = ScatterTablesFor(plan->scheduler, ranks, r);
    if (!t.ok()) {
      std::printf("%-20s reduce-scatter over %d ranks refused: %s\n", shape.name, ranks, t.status().message().c_str());
      return false;
    }
    tables.push_back(*std::move(t));
  }
  const int64_t block_rows = shape.m / ranks, tiles = tables[0].tiles_per_block;
  const size_t na = size_t(shape.m * shape.k), nb = size_t(shape.k * shape.n), nc = size_t(shape.m * shape.n);

  ScatterRig rig;
  rig.ranks = ranks;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> host(std::max(na, nb));
  for (int r = 0; r < ranks; ++r) {
    rig.a.push_back(nullptr);
    BENCH_CHECK(Alloc(&rig.a.back(), na * 2));
    for (size_t i = 0; i < na; ++i) host[i] = ToBf16(u(rng));
    BENCH_CHECK(Upload(rig.a.back(), host.data(), na * 2));
  }
  BENCH_CHECK(Alloc(&rig.b, nb * 2));
  for (size_t i = 0; i < nb; ++i) host[i] = ToBf16(u(rng));
  BENCH_CHECK(Upload(rig.b, host.data(), nb * 2));
  BENCH_CHECK(Alloc(&rig.c, nc * 2));
  BENCH_CHECK(Alloc(&rig.out, nc * 2));
  for (int q = 0; q < ranks; ++q) {
    rig.recv.push_back(nullptr);
    BENCH_CHECK(Alloc(&rig.recv.back(), size_t(ranks) * size_t(block_rows * shape.n) * 2));
    rig.counters.push_back(nullptr);
    BENCH_CHECK(Alloc(&rig.counters.back(), size_t(tiles) * 4));
    BENCH_CHECK(Cuda(cudaMemset(rig.counters.back(), 0, size_t(tiles) * 4), "cudaMemset"));
    rig.orders.push_back(nullptr);
    BENCH_CHECK(Alloc(&rig.orders.back(), tables[size_t(q)].order.size() * 8));
    BENCH_CHECK(Upload(rig.orders.back(), tables[size_t(q)].order.data(), tables[size_t(q)].order.size() * 8));
  }
  void* mapped = nullptr;
  BENCH_CHECK(Cuda(cudaHostAlloc(&mapped, sizeof(uint32_t), cudaHostAllocMapped), "cudaHostAlloc"));
  rig.timed_out_host = static_cast<uint32_t*>(mapped);
  *rig.timed_out_host = 0;
  void* device_view = nullptr;
  BENCH_CHECK(Cuda(cudaHostGetDevicePointer(&device_view, mapped, 0), "cudaHostGetDevicePointer"));
  rig.timed_out_device = static_cast<uint32_t*>(device_view);

  // The reference: the fp32 sum of cuBLASLt's P products, rounded once.
  std::vector<float> sum(nc, 0.0f);
  std::vector<uint16_t> part(nc), want(nc), got(nc);
  MatmulArgs args = LtArgs(shape, nullptr, rig.b, rig.c);  // a: each rank's, below
  auto* stream = reinterpret_cast<GpuStream>(s);
  for (int r = 0; r < ranks; ++r) {
    args.a = rig.a[size_t(r)];
    BENCH_CHECK(blas.Matmul(args, stream));
    BENCH_CHECK(Cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize"));
    BENCH_CHECK(Download(&part, rig.c));
    for (size_t i = 0; i < nc; ++i) sum[i] += FromBf16(part[i]);
  }
  for (size_t i = 0; i < nc; ++i) want[i] = ToBf16(sum[i]);

  // Rounds of scatter GEMMs so far: after round e every counter holds e·P.
  uint32_t epoch = 0;
  const auto scatter_gemms = [&]() -> Status {
    ++epoch;
    for (int r = 0; r < ranks; ++r) {
      ScatterEpilogue e;
      e.ranks = ranks;
      e.rank = r;
      e.block_rows = block_rows;
      for (int q = 0; q < ranks; ++q) {
        e.slots[q] = rig.recv[size_t(q)];
        e.counters[q] = rig.counters[size_t(q)];
      }
      ArrivalWait order;
      order.order = rig.orders[size_t(r)];
      BRAID_RETURN_IF_ERROR(RunGemm(problem, device, rig.a[size_t(r)], rig.b, nullptr, s, order, e));
    }
    return Status::Ok();
  };
  const auto reduces = [&]() -> Status {
    for (int q = 0; q < ranks; ++q) {
      PartialReduce red;
      red.ranks = ranks;
      red.rank = q;
      red.block_rows = block_rows;
      red.n = shape.n;
      red.tile_m = plan->scheduler.tile_m;
      red.tile_n = plan->scheduler.tile_n;
      red.group_m = plan->scheduler.group_m;
      red.dtype = 0;
      red.slots = rig.recv[size_t(q)];
      red.counters = rig.counters[size_t(q)];
      red.epoch = epoch;
      red.out = static_cast<uint16_t*>(rig.out) + q * block_rows * shape.n;
      red.timeout_ns = kTimeoutNs;
      red.timed_out = rig.timed_out_device;
      BRAID_RETURN_IF_ERROR(CheckPartialReduce(red));
      BRAID_RETURN_IF_ERROR(Cuda(LaunchPartialReduce(red, kReduceCtas, s), "LaunchPartialReduce"));
    }
    return Status::Ok();
  };
  const auto plain_gemms = [&]() -> Status {
    for (int r = 0; r < ranks; ++r) BRAID_RETURN_IF_ERROR(RunGemm(problem, device, rig.a[size_t(r)], rig.b, rig.c, s));
    return Status::Ok();
  };
  const double plain_ms = MedianMs(plain_gemms, warmup, iters, s);
  const double scatter_ms = MedianMs(scatter_gemms, warmup, iters, s);
  const double reduce_ms = MedianMs(reduces, warmup, iters, s);

  // The checked round: NaN in every slot and in out (0xFFFF is a bf16 NaN),
  // so a tile that no source stored, or that no reduce wrote, shows.
  for (void* p : rig.recv)
    BENCH_CHECK(Cuda(cudaMemset(p, 0xFF, size_t(ranks) * size_t(block_rows * shape.n) * 2), "cudaMemset"));
  BENCH_CHECK(Cuda(cudaMemset(rig.out, 0xFF, nc * 2), "cudaMemset"));
  BENCH_CHECK(scatter_gemms());
  BENCH_CHECK(reduces());
  const cudaError_t done = cudaStreamSynchronize(s);
  if (done != cudaSuccess) {
    std::fprintf(stderr, "braid_gemm_bench: reduce-scatter round failed (%s); timed-out record %u\n",
                 cudaGetErrorString(done), *rig.timed_out_host);
    std::exit(1);
  }
  BENCH_CHECK(Download(&got, rig.out));
  const double err = MaxRelError(got, want);
  const bool ok = err <= kMaxRelError && *rig.timed_out_host == 0;
  std::printf(
      "%-20s reduce-scatter P=%d: %d GEMMs plain %.3f ms, scattering %.3f ms (%.1f%%)  %d reduces %.3f ms  "
      "max rel err %.2e %s\n",
      shape.name, ranks, ranks, plain_ms, scatter_ms, 100.0 * scatter_ms / plain_ms, ranks, reduce_ms, err,
      ok ? "ok" : "MISMATCH");
  return ok;
}

}  // namespace braid::cuda::gemm::bench
