// Shared-memory swizzles: the XOR patterns that let a warp read eight rows of
// a tile at the same logical column without bank conflicts.
//
// XorSwizzle{bits, base, shift} maps a byte offset o to
//   o ^ (((o >> (base + shift)) & ((1 << bits) - 1)) << base)
// i.e. the `bits`-bit field of 16-byte chunk index (base = 4) is XORed with
// the same-width field `shift` bits above it (the row). Within one period of
// 2^(base + shift + bits) bytes it is a bijection (an XOR with bits taken
// from outside the changed field is its own inverse), and it never moves a
// byte out of its 16-byte chunk, so 16-byte copies (TMA, cp.async) and
// ldmatrix row addresses stay whole.
//
// kTma128B is the pattern TMA writes with CU_TENSOR_MAP_SWIZZLE_128B and
// wgmma reads with descriptor swizzle mode 1: within each 1024-byte block of
// eight 128-byte rows, chunk c of row r lands at chunk c ^ r.
// kSm80A / kSm80B are the sm_80 kernel's patterns for its 64-byte A rows
// (128×32 bf16: chunk ^= (row / 2) % 4) and 256-byte B rows (32×128 bf16:
// chunk's low 3 bits ^= row % 8); both put the eight row addresses of one
// ldmatrix phase on eight distinct 16-byte bank groups.
#pragma once

#include <cstdint>

#include "gemm/gemm_hd.h"

namespace braid::cuda::gemm {

struct XorSwizzle {
  int bits = 3, base = 4, shift = 3;

  BRAID_GEMM_HD uint32_t operator()(uint32_t offset) const {
    const uint32_t mask = (1u << bits) - 1u;
    return offset ^ (((offset >> (base + shift)) & mask) << base);
  }
  // Bytes after which the pattern repeats.
  BRAID_GEMM_HD uint32_t period() const { return 1u << (base + shift + bits); }
};

inline constexpr XorSwizzle kTma128B{3, 4, 3};
inline constexpr XorSwizzle kSm80A{2, 4, 3};
inline constexpr XorSwizzle kSm80B{3, 4, 4};

// The same patterns as functions: device code calls these (a namespace-scope
// object is not visible to it).
BRAID_GEMM_HD uint32_t Swizzle128B(uint32_t offset) { return XorSwizzle{3, 4, 3}(offset); }
BRAID_GEMM_HD uint32_t SwizzleSm80A(uint32_t offset) { return XorSwizzle{2, 4, 3}(offset); }
BRAID_GEMM_HD uint32_t SwizzleSm80B(uint32_t offset) { return XorSwizzle{3, 4, 4}(offset); }

// The 16-byte bank group (0..7 within a 128-byte line) a byte offset falls in:
// eight 16-byte reads of one ldmatrix phase are conflict-free when their
// groups differ.
BRAID_GEMM_HD uint32_t BankGroup16(uint32_t offset) { return (offset >> 4) & 7u; }

}  // namespace braid::cuda::gemm
