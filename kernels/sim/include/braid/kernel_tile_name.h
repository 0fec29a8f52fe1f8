// The tile a GEMM kernel's name states (gemm_kernels.csv's names, which
// come from a user's GPU): a pure function of the bytes, fuzzed with the
// measurement files.
#pragma once

#include <optional>
#include <string_view>

namespace braid::sim {

struct TileShape {
  int m = 0, n = 0;
};

// The CTA tile a GEMM kernel's name states, where it states one the way
// NVIDIA's libraries name them: cuBLASLt's nvjet kernels
// ("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT": the first M×N token),
// CUTLASS 3 / xmma ("..._tilesize128x256x64_..."), and the sm80 cuBLAS
// kernels ("ampere_bf16_s16816gemm_bf16_128x256_ldg8_..."). nullopt when no
// token reads as a tile (each side 8 to 1024).
std::optional<TileShape> KernelTileOf(std::string_view name);

}  // namespace braid::sim
