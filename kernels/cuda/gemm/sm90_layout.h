// The sm_90a kernel's operand layout in one ring slot and the wgmma
// descriptors it reads them with, as host-and-device functions: the kernel
// (gemm_sm90.cu) calls exactly these, and tests/cuda/gemm_sm90_layout_test.cc
// checks, element by element, that each descriptor — decoded through the
// PTX ISA's canonical 128B-swizzled layouts — addresses the byte where the
// TMA load put that element.
//
// Slot layout: A as one TMA box of 128 rows × 64 k (128-byte rows, K
// contiguous); B as two TMA boxes of 64 k-rows × 64 columns (128-byte rows,
// N contiguous), the second kBBoxBytes after the first. Both with the 128B
// swizzle, every box 1024-byte aligned. The wide tile (tile_n 256) holds
// four B boxes: two 128-column halves, each laid out as the narrow tile's
// B, the second kBHalfBytes after the first (FP8: bᵀ's 256 rows, the second
// 128 rows as far on), so each half is read by the narrow descriptors.
#pragma once

#include <cstdint>

#include "gemm/gemm_hd.h"
#include "gemm/wgmma_desc.h"

namespace braid::cuda::gemm::sm90 {

inline constexpr int kTileM = 128, kTileN = 128, kTileK = 64;
inline constexpr int kBoxCols = 64;                               // B box width (128 bytes of 2-byte elements)
inline constexpr int kABytes = kTileM * kTileK * 2;               // 16 KiB
inline constexpr int kBBoxBytes = kTileK * kBoxCols * 2;          // 8 KiB
inline constexpr int kBBytes = (kTileN / kBoxCols) * kBBoxBytes;  // 16 KiB
inline constexpr int kWarpgroupRows = 64;                         // rows of A per consumer warpgroup
inline constexpr int kWideTileN = 256;                            // the wide variant's tile width
inline constexpr int kBHalfBytes = kBBytes;  // 16 KiB: a 128-column half of B (FP8: 128 rows of bᵀ)
// B's bytes in one slot for a tile `tile_n` wide (128 or 256).
BRAID_GEMM_HD constexpr int BBytesFor(int tile_n) { return (tile_n / kTileN) * kBHalfBytes; }

// Byte offset (before the swizzle) at which TMA puts A element (row, k) of
// the slot, and B element (k, col).
BRAID_GEMM_HD uint32_t ATmaOffset(int row, int k) { return uint32_t(row * kTileK * 2 + k * 2); }
BRAID_GEMM_HD uint32_t BTmaOffset(int k, int col) {
  return uint32_t((col / kBoxCols) * kBBoxBytes + k * kBoxCols * 2 + (col % kBoxCols) * 2);
}

// The descriptor of consumer warpgroup wg's A (64 rows, K-major) for k16
// step kk of the slot at shared address a_slot: the start moves 32 bytes
// along the swizzled row per step; SBO = 1024 (eight 128-byte rows).
BRAID_GEMM_HD uint64_t ADescriptor(uint32_t a_slot, int wg, int kk) {
  return WgmmaDescriptor(a_slot + uint32_t(wg * kWarpgroupRows * kTileK * 2 + kk * 32), kWgmmaKMajorLbo,
                         kWgmmaSwizzleAtom, WgmmaSwizzle::k128B);
}

// The descriptor of B (MN-major) for k16 step kk: the start moves 16 rows of
// 128 bytes per step; LBO = the distance to the second 64-column box, SBO =
// 1024 (eight k-rows).
BRAID_GEMM_HD uint64_t BDescriptor(uint32_t b_slot, int kk) {
  return WgmmaDescriptor(b_slot + uint32_t(kk * 16 * kBoxCols * 2), uint32_t(kBBoxBytes), kWgmmaSwizzleAtom,
                         WgmmaSwizzle::k128B);
}

// FP8 (one-byte elements, K step 128 = the same 128-byte rows): A as above
// with k32 steps of 32 bytes (ADescriptor's kk), and B stored as bᵀ, K-major
// like A: one TMA box of 128 N rows × 128 bytes, read by A's descriptor form
// over all 128 rows (FP8 wgmma takes no transposed operand).
inline constexpr int kFp8TileK = 128;
BRAID_GEMM_HD uint64_t BKMajorDescriptor(uint32_t b_slot, int kk) { return ADescriptor(b_slot, 0, kk); }

}  // namespace braid::cuda::gemm::sm90
