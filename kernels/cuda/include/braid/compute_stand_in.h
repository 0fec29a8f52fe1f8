// The GEMMs the cuda backend runs for a plan's compute step (attention's
// forward and backward, which Braid does not implement): matmuls on scratch
// operands whose FLOPs add up to the step's, shaped so that they run near
// the GPU's matmul rate, as the flash-attention kernels they stand for do,
// and as the simulator models them (flops / (peak · efficiency)).
//
// On an H200, 256³ tiles (the first stand-in) ran at about 1.7 TFLOP/s: a
// 4.3 GFLOP attention forward took 2.6 ms, 128 launches each with its own
// cuBLASLt heuristic query; its training steps' makespans were 13 to 29×
// the simulator's. A few GEMMs of up to 2048 × 2048 × 1024 keep the launches
// to one per 8.6 GFLOP. The operands are zeros, which may draw less power
// than real activations: if anything, the stand-in runs a little fast.
#pragma once

#include <cstdint>

namespace braid::cuda {

struct ComputeStandIn {
  int64_t m = 0, n = 0, k = 0;  // each GEMM, row-major c[m×n] = a[m×k]·b[k×n]
  int64_t count = 0;            // GEMMs of that shape; 0 for a step of no FLOPs
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(count); }
};

// The largest stand-in GEMM: m and n at most kStandInMaxDim, k at most
// kStandInMaxK (each rank's scratch is sized for its largest step).
inline constexpr int64_t kStandInMaxDim = 2048;
inline constexpr int64_t kStandInMaxK = 1024;

// Dimensions are multiples of 16 (cuBLASLt's fast paths, FP8 included); the
// FLOPs come within 4 % of `flops` from 10⁶ up and within 1.5 % from 10¹⁰
// up (below 10⁶, one GEMM of at least 16³), with as few GEMMs as the
// largest shape allows.
ComputeStandIn StandInFor(double flops);

}  // namespace braid::cuda
