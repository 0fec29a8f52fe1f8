// The sm_80 kernel's shared-memory traffic emulated on the host over the
// functions it calls (kernels/cuda/gemm/sm80_layout.h): every thread's
// cp.async chunks are placed in a stage as the kernel places them, then
// every lane's ldmatrix.x4 (A) and ldmatrix.x4.trans (B) is read back as the
// PTX ISA defines those instructions, and each register must hold exactly
// the elements mma.sync.m16n8k16's fragment layout says it holds. A wrong
// swizzle, chunk mapping or lane address fails here without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gemm/sm80_layout.h"

namespace braid::cuda::gemm::sm80 {
namespace {

// Element values that name their position: A(r, k) and B(k, n) differ everywhere.
uint16_t AValue(int r, int k) { return uint16_t(r * 64 + k); }
uint16_t BValue(int k, int n) { return uint16_t(0x8000 | (k * 256 + n)); }

// A stage as the kernel's 256 threads fill it (two chunks each per operand).
struct Stage {
  std::vector<uint8_t> a = std::vector<uint8_t>(kTileM * kARowBytes, 0xEE);
  std::vector<uint8_t> b = std::vector<uint8_t>(kTileK * kBRowBytes, 0xEE);

  Stage() {
    for (int t = 0; t < kThreads; ++t)
      for (int i = 0; i < kChunksPerThread; ++i) {
        const int e = t + i * kThreads;
        const Cell ac = AChunk(e), bc = BChunk(e);
        for (int x = 0; x < 8; ++x) {  // one 16-byte cp.async: 8 consecutive elements
          Put(a, AOffset(ac.row, ac.col) + 2u * uint32_t(x), AValue(ac.row, ac.col + x));
          Put(b, BOffset(bc.row, bc.col) + 2u * uint32_t(x), BValue(bc.row, bc.col + x));
        }
      }
  }
  static void Put(std::vector<uint8_t>& m, uint32_t off, uint16_t v) {
    ASSERT_LE(off + 2, m.size());
    ASSERT_EQ(m[off], 0xEE) << "two chunks wrote byte " << off;
    std::memcpy(&m[off], &v, 2);
  }
  static uint16_t Get(const std::vector<uint8_t>& m, uint32_t off) {
    uint16_t v;
    std::memcpy(&v, &m[off], 2);
    return v;
  }
};

// ldmatrix.x4: matrix j's row i is the 8 elements at lane 8j+i's address.
// Without .trans, lane t's register j holds matrix j's (row t/4, cols 2(t%4), +1);
// with .trans, (rows 2(t%4), +1; col t/4).
struct Reg {
  uint16_t lo, hi;
};
Reg LdMatrix(const std::vector<uint8_t>& m, const uint32_t (&addr)[32], int j, int t, bool trans) {
  auto elem = [&](int row, int col) { return Stage::Get(m, addr[8 * j + row] + 2u * uint32_t(col)); };
  if (!trans) return Reg{elem(t / 4, 2 * (t % 4)), elem(t / 4, 2 * (t % 4) + 1)};
  return Reg{elem(2 * (t % 4), t / 4), elem(2 * (t % 4) + 1, t / 4)};
}

TEST(GemmSm80Layout, CpAsyncChunksFillEachStageExactlyOnce) {
  const Stage s;
  for (int r = 0; r < kTileM; ++r)
    for (int k = 0; k < kTileK; ++k) ASSERT_EQ(Stage::Get(s.a, AOffset(r, k)), AValue(r, k));
  for (int k = 0; k < kTileK; ++k)
    for (int n = 0; n < kTileN; ++n) ASSERT_EQ(Stage::Get(s.b, BOffset(k, n)), BValue(k, n));
}

TEST(GemmSm80Layout, LdmatrixGivesEveryLaneItsMmaAFragment) {
  const Stage s;
  for (int warp_m = 0; warp_m < 2; ++warp_m)
    for (int mi = 0; mi < 4; ++mi)
      for (int ks = 0; ks < kTileK / 16; ++ks) {
        uint32_t addr[32];
        for (int lane = 0; lane < 32; ++lane) {
          const Cell c = ALdmatrixRow(warp_m, mi, ks, lane);
          addr[lane] = AOffset(c.row, c.col);
        }
        const int r0 = warp_m * 64 + mi * 16, k0 = ks * 16;
        for (int t = 0; t < 32; ++t) {
          const int g = t / 4, q = t % 4;
          // mma.sync m16n8k16 A (row): a0 (g, 2q), a1 (g+8, 2q), a2 (g, 2q+8), a3 (g+8, 2q+8), pairs along k.
          const int rows[4] = {g, g + 8, g, g + 8}, ks_[4] = {2 * q, 2 * q, 2 * q + 8, 2 * q + 8};
          for (int j = 0; j < 4; ++j) {
            const Reg reg = LdMatrix(s.a, addr, j, t, false);
            ASSERT_EQ(reg.lo, AValue(r0 + rows[j], k0 + ks_[j]))
                << "warp_m " << warp_m << " mi " << mi << " lane " << t;
            ASSERT_EQ(reg.hi, AValue(r0 + rows[j], k0 + ks_[j] + 1));
          }
        }
      }
}

TEST(GemmSm80Layout, LdmatrixTransGivesEveryLaneItsMmaBFragment) {
  const Stage s;
  for (int warp_n = 0; warp_n < 4; ++warp_n)
    for (int nj = 0; nj < 2; ++nj)
      for (int ks = 0; ks < kTileK / 16; ++ks) {
        uint32_t addr[32];
        for (int lane = 0; lane < 32; ++lane) {
          const Cell c = BLdmatrixRow(warp_n, nj, ks, lane);
          addr[lane] = BOffset(c.row, c.col);
        }
        const int k0 = ks * 16;
        for (int t = 0; t < 32; ++t) {
          const int g = t / 4, q = t % 4;
          // Registers 0, 1: b0, b1 of n-block 2nj; registers 2, 3: of n-block 2nj+1.
          // mma.sync m16n8k16 B (col): b0 (k 2q, 2q+1; n g), b1 (k 2q+8, 2q+9; n g).
          for (int j = 0; j < 4; ++j) {
            const int n = warp_n * 32 + nj * 16 + (j / 2) * 8 + g, k = k0 + 2 * q + (j % 2) * 8;
            const Reg reg = LdMatrix(s.b, addr, j, t, true);
            ASSERT_EQ(reg.lo, BValue(k, n)) << "warp_n " << warp_n << " nj " << nj << " lane " << t << " reg " << j;
            ASSERT_EQ(reg.hi, BValue(k + 1, n));
          }
        }
      }
}

}  // namespace
}  // namespace braid::cuda::gemm::sm80
