// Where the sm_80 kernel (gemm_sm80.cu) puts each element of a stage in
// shared memory and where its ldmatrix lanes read, as host-and-device
// functions: the kernel calls exactly these, and tests/cuda/
// gemm_sm80_layout_test.cc emulates cp.async, ldmatrix (.trans) and the
// mma.sync fragment layout over them on the host, checking that every
// fragment holds the elements of A and B it must.
//
// Stage layout (one per ring slot): A as 128 rows × 32 k (64-byte rows,
// swizzle kSm80A), B as 32 k-rows × 128 columns (256-byte rows, kSm80B).
#pragma once

#include <cstdint>

#include "gemm/gemm_hd.h"
#include "gemm/smem_swizzle.h"

namespace braid::cuda::gemm::sm80 {

inline constexpr int kTileM = 128, kTileN = 128, kTileK = 32, kThreads = 256;
inline constexpr int kARowBytes = kTileK * 2, kBRowBytes = kTileN * 2;
inline constexpr int kAChunksPerRow = kARowBytes / 16, kBChunksPerRow = kBRowBytes / 16;
inline constexpr int kChunksPerThread = kTileM * kAChunksPerRow / kThreads;  // per operand
static_assert(kTileM * kAChunksPerRow == kTileK * kBChunksPerRow, "A and B stages hold equally many chunks");

// Byte offset in the stage of A element (row, k) / B element (krow, col).
BRAID_GEMM_HD uint32_t AOffset(int row, int k) { return SwizzleSm80A(uint32_t(row * kARowBytes + k * 2)); }
BRAID_GEMM_HD uint32_t BOffset(int krow, int col) { return SwizzleSm80B(uint32_t(krow * kBRowBytes + col * 2)); }

struct Cell {
  int row = 0, col = 0;  // A: (row, k); B: (k row, column)
};

// The 16-byte chunk `e` (0..511) of a stage that thread copies: chunk
// e = thread + i·256 covers 8 elements starting at the returned cell.
BRAID_GEMM_HD Cell AChunk(int e) { return Cell{e / kAChunksPerRow, (e % kAChunksPerRow) * 8}; }
BRAID_GEMM_HD Cell BChunk(int e) { return Cell{e / kBChunksPerRow, (e % kBChunksPerRow) * 8}; }

// The row a lane hands ldmatrix.x4 for A's 16×16 piece mi of warp row
// warp_m at k16 step ks: lanes 0-15 rows 0-15 at k 0-7, lanes 16-31 the same
// rows at k 8-15 (registers a0..a3 in mma.sync's A order).
BRAID_GEMM_HD Cell ALdmatrixRow(int warp_m, int mi, int ks, int lane) {
  return Cell{warp_m * 64 + mi * 16 + lane % 16, ks * 16 + (lane / 16) * 8};
}

// The k row a lane hands ldmatrix.x4.trans for B's 16(k)×16(n) piece nj of
// warp column warp_n: matrices (k 0-7, n 0-7), (k 8-15, n 0-7),
// (k 0-7, n 8-15), (k 8-15, n 8-15), i.e. b0, b1 of n-block 0, then of 1.
BRAID_GEMM_HD Cell BLdmatrixRow(int warp_n, int nj, int ks, int lane) {
  return Cell{ks * 16 + lane % 8 + ((lane / 8) % 2) * 8, warp_n * 32 + nj * 16 + (lane / 16) * 8};
}

}  // namespace braid::cuda::gemm::sm80
