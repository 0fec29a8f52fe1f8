// The GEMM core's tile configuration per architecture, and what it costs in
// shared memory. One config per kernel: the kernels static_assert that their
// compile-time tile equals TileConfigFor(arch), so host planning and device
// code cannot drift.
//
//  sm_90a  128×128 CTA tile, K step 64 (one 128-byte swizzle row of bf16),
//          5-stage TMA ring, 384 threads: warpgroup 0 is the producer (one
//          thread issues TMA; setmaxnreg gives its registers away), warpgroups
//          1 and 2 are consumers, each owning 64 rows × 128 columns of the
//          tile as one wgmma m64n128k16 accumulator (64 fp32 registers).
//  sm_80   128×128 CTA tile, K step 32, 4-stage cp.async ring, 256 threads
//          (8 warps as 2 × 4, each 64 × 32 of the tile in mma.sync m16n8k16).
//  sm_90a, FP8 E4M3 operands: the same ring in bytes (a K step of 128
//          one-byte elements fills the same 128-byte swizzle row), wgmma
//          m64n128k32 per 32 bytes of K.
//  sm_90a wide (GemmDevice::tile_n 256, bf16/fp16/FP8): a 128×256 CTA tile,
//          4 stages (48 KiB each), each consumer warpgroup owning 64 × 256
//          as two m64n128 accumulators (128 fp32 registers), two wgmmas per
//          k step on the two 128-column halves of the slot's B. Why: per
//          k-block it loads 48 KiB for twice the MMAs of the 32 KiB a
//          128×128 tile loads (25 % fewer bytes per flop), the step public
//          Hopper GEMMs take to approach cuBLAS; which shapes it wins is
//          for braid_gemm_bench on a GPU to tell (never run on one yet).
#pragma once

#include <cstdint>

#include "braid/status.h"

namespace braid::cuda::gemm {

enum class GemmArch { kSm80, kSm90a };

const char* GemmArchName(GemmArch arch);  // "sm_80", "sm_90a"

struct TileConfig {
  GemmArch arch = GemmArch::kSm80;
  int tile_m = 128, tile_n = 128, tile_k = 32;
  int stages = 4;
  int consumer_warpgroups = 0;  // sm_90a: consumers; 0 on sm_80 (no warp specialization)
  int producer_warpgroups = 0;  // sm_90a: 1
  int threads = 256;
  int group_m = 8;     // raster group height (tile_scheduler.h)
  int elem_bytes = 2;  // of A and B: 2 (bf16 / fp16), 1 (FP8 E4M3, sm_90a)
};

// The config the kernel of `arch` is compiled for (constexpr: the kernels
// static_assert against it); `fp8`: its FP8 E4M3 variant (sm_90a only);
// `wide`: the 128×256 tile (sm_90a only; ignored on sm_80, which PlanGemm
// refuses to ask for).
constexpr TileConfig TileConfigFor(GemmArch arch, bool fp8 = false, bool wide = false) {
  TileConfig c;
  c.arch = arch;
  if (arch == GemmArch::kSm90a) {
    c.tile_k = fp8 ? 128 : 64;
    c.elem_bytes = fp8 ? 1 : 2;
    c.tile_n = wide ? 256 : 128;
    c.stages = wide ? 4 : 5;
    c.producer_warpgroups = 1;
    c.consumer_warpgroups = 2;
    c.threads = 128 * (c.producer_warpgroups + c.consumer_warpgroups);
  }
  return c;
}

// The architecture whose kernel runs on compute capability major.minor:
// 9.0 → sm_90a (wgmma, TMA), 8.x → sm_80 (mma.sync, cp.async); anything else
// kUnavailable naming the capability (no kernel of ours is built for it).
Result<GemmArch> ArchForCapability(int major, int minor);

// Shared memory the kernel allocates dynamically: the operand ring (each
// stage one A tile and one B tile of elem_bytes elements), the sm_90a ring's
// two mbarriers per stage, and 1024 bytes of slack to align the ring to the
// 1024-byte period of the 128B swizzle (dynamic shared memory is only
// guaranteed 16-byte aligned).
constexpr int64_t SmemBytes(const TileConfig& c) {
  const int64_t stage = (int64_t(c.tile_m) * c.tile_k + int64_t(c.tile_k) * c.tile_n) * c.elem_bytes;
  const int64_t barriers = c.arch == GemmArch::kSm90a ? 2 * int64_t(c.stages) * 8 : 0;
  return int64_t(c.stages) * stage + barriers + 1024;
}

// kInvalidArgument when SmemBytes(c) exceeds `limit` (the device's opt-in
// maximum per block: cudaDevAttrMaxSharedMemoryPerBlockOptin), naming both.
Status CheckSmemBudget(const TileConfig& c, int64_t limit);

}  // namespace braid::cuda::gemm
