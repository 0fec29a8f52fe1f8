// The 64-bit shared-memory matrix descriptor wgmma.mma_async takes for an
// operand in shared memory (PTX ISA, "Matrix Descriptor Format"):
//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset (LBO) >> 4
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 49-51  base offset (0: every tile here starts 1024-byte aligned)
//   bits 62-63  swizzle mode: 0 none, 1 128B, 2 64B, 3 32B
//
// The sm_90 kernel's two operand layouts, both written by TMA with the 128B
// swizzle (smem_swizzle.h kTma128B):
//  - A, K-major (row-major A: K contiguous), rows of 64 elements = 128 bytes.
//    The swizzle atom already spans the whole K of a step, so LBO is unused
//    (set to 16 bytes, the value that encodes 1) and SBO = 1024 bytes, the
//    distance between groups of eight rows. A k16 step moves the start
//    address by 32 bytes inside the 128-byte row.
//  - B, MN-major (row-major K×N: N contiguous), stored as boxes of 64 N
//    elements (128 bytes) × tile_k rows. LBO = the distance between two
//    64-wide N boxes, SBO = 1024 bytes between groups of eight K rows; a k16
//    step moves the start address by 16 rows = 2048 bytes.
// Derived from the PTX ISA's canonical layouts; not yet checked on a GPU.
#pragma once

#include <cstdint>

#include "gemm/gemm_hd.h"

namespace braid::cuda::gemm {

enum class WgmmaSwizzle : uint32_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

BRAID_GEMM_HD uint64_t WgmmaDescriptor(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                       WgmmaSwizzle swizzle) {
  uint64_t d = 0;
  d |= uint64_t((smem_addr >> 4) & 0x3FFFu);
  d |= uint64_t((lbo_bytes >> 4) & 0x3FFFu) << 16;
  d |= uint64_t((sbo_bytes >> 4) & 0x3FFFu) << 32;
  d |= uint64_t(uint32_t(swizzle) & 3u) << 62;
  return d;
}

inline constexpr uint32_t kWgmmaKMajorLbo = 16;      // unused by a 128B-swizzled K-major operand
inline constexpr uint32_t kWgmmaSwizzleAtom = 1024;  // eight 128-byte rows

}  // namespace braid::cuda::gemm
