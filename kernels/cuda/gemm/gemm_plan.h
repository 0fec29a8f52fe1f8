// One GEMM as the core will launch it, decided on the host: the refusals of
// shapes the kernels cannot tile, the tile config, the persistent grid and
// the TMA maps' parameters. Pure host C++ (no CUDA), tested in
// tests/cuda/gemm_plan_test.cc.
//
// c (m × n) = a (m × k) · b (k × n): all row-major, bf16 or fp16 in and out,
// fp32 accumulation; the operand convention of the cuda backend's cuBLASLt
// call (real/real_blaslt.cc, braid/blaslt_api.h MatmulArgs) and the fused
// kernel (fused_kernel.cu reads b[k·n + col]). FP8 E4M3 (sm_90a only), as
// the backend's FP8 cuBLASLt call takes it (Fp8Operands): a m × k and b
// stored as bᵀ (n × k, ldb ≥ k), both K-major, c bf16, and
// c = a_scale · b_scale · (a · b) with the per-tensor scales as device fp32
// scalars (Fp8Scales, gemm_kernels.h).
#pragma once

#include <cstdint>

#include "braid/status.h"
#include "braid/workload.h"
#include "gemm/tile_config.h"
#include "gemm/tile_scheduler.h"
#include "gemm/tma_params.h"

namespace braid::cuda::gemm {

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;  // elements; 0 means dense (k, n, n; FP8: k, k, n)
  DType dtype = DType::kBf16;         // of a, b and c (fp8_e4m3: of a and b; c bf16)
};

// FP8's per-tensor dequantization scales, device fp32 scalars read by the
// epilogue (c = *a · *b · (a·b)), as cuBLASLt's A/B scale pointers: a scale
// computed on the GPU (current scaling) needs no host round trip.
struct Fp8Scales {
  const float* a = nullptr;
  const float* b = nullptr;
};

// What the device offers the launch.
struct GemmDevice {
  GemmArch arch = GemmArch::kSm80;
  int num_sms = 0;
  int64_t smem_optin = 0;  // cudaDevAttrMaxSharedMemoryPerBlockOptin, bytes
  // The CTA tile's width the launch asks of the kernel: 0 (the arch's
  // default) or 128 on both arches, 256 on sm_90a (its wide variant,
  // tile_config.h). Not a property of the device: the launch's choice,
  // carried here because every launch re-plans from (problem, device).
  int tile_n = 0;
};

struct GemmPlan {
  GemmProblem problem;  // leading dimensions filled in
  TileConfig config;
  TileScheduler scheduler;
  int grid = 0;  // persistent CTAs
  int threads = 0;
  int64_t smem_bytes = 0;
  TmaTensorMapParams tma_a, tma_b;  // sm_90a only
};

// The plan, or kInvalidArgument naming the first constraint the problem
// breaks:
//  - dtype bf16 or fp16 (the kernels' mma instructions), or fp8_e4m3 on
//    sm_90a with k and every FP8 leading dimension a multiple of 16;
//  - m, n, k ≥ 1 and < 2^31 (32-bit tile and element indices in the kernels);
//  - k and n multiples of 8 elements, and every leading dimension a multiple
//    of 8 elements and at least its row: each row must start on a 16-byte
//    boundary, since every global access is a 16-byte copy (cp.async.cg 16,
//    TMA boxes, whose global strides must be multiples of 16 bytes) and a
//    16-byte copy never straddles the matrix's edge;
//  - the tile config's shared memory within the device's opt-in limit;
//  - the TMA maps' own rules (tma_params.h), sm_90a.
//  - device.tile_n 0 or 128, or 256 on sm_90a.
// kUnavailable when device.num_sms < 1.
Result<GemmPlan> PlanGemm(const GemmProblem& problem, const GemmDevice& device);

}  // namespace braid::cuda::gemm
