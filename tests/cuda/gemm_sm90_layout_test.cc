// The sm_90a kernel's wgmma descriptors against its TMA layout
// (kernels/cuda/gemm/sm90_layout.h): each descriptor is decoded through the
// PTX ISA's canonical layouts for 128B-swizzled operands (as CuTe writes
// them, in 16-byte units T = 8 two-byte elements):
//   K-major  ((8, m), (T, 2k)) : ((8T, SBO), (1, T))      rows × k
//   MN-major ((8T, m), (8, k)) : ((1, LBO), (8T, SBO))    n × k
// then swizzled (Swizzle<3,4,3>: the 128B pattern on the byte address), and
// every element of every k16 step must land on the byte where TMA, writing
// its box row-major with the same swizzle, put it. A wrong start offset,
// LBO or SBO fails here without a GPU. (The canonical layouts are this
// test's reading of the ISA; only a GPU confirms the hardware agrees.)
#include <gtest/gtest.h>

#include <cstdint>

#include "gemm/sm90_layout.h"
#include "gemm/smem_swizzle.h"

namespace braid::cuda::gemm::sm90 {
namespace {

struct Fields {
  uint32_t start, lbo, sbo, swizzle;
};
Fields Decode(uint64_t d) {
  return Fields{uint32_t(d & 0x3FFF) << 4, uint32_t((d >> 16) & 0x3FFF) << 4, uint32_t((d >> 32) & 0x3FFF) << 4,
                uint32_t(d >> 62)};
}

constexpr uint32_t kSlot = 0x4000;  // a 1024-byte-aligned shared address, as the kernel's ring is

// Byte address of K-major element (row 0..63, k 0..15) of a wgmma k16 step.
uint32_t KMajorAddress(const Fields& f, int row, int k) {
  return f.start + uint32_t(row % 8) * 128 + uint32_t(row / 8) * f.sbo + uint32_t(k) * 2;
}
// Byte address of MN-major element (n 0..127, k 0..15).
uint32_t MnMajorAddress(const Fields& f, int n, int k) {
  return f.start + uint32_t(n % 64) * 2 + uint32_t(n / 64) * f.lbo + uint32_t(k % 8) * 128 + uint32_t(k / 8) * f.sbo;
}

TEST(GemmSm90Layout, ADescriptorsAddressWhereTmaPutEachElement) {
  for (int wg = 0; wg < 2; ++wg)
    for (int kk = 0; kk < kTileK / 16; ++kk) {
      const Fields f = Decode(ADescriptor(kSlot, wg, kk));
      EXPECT_EQ(f.swizzle, 1u);
      EXPECT_EQ(f.sbo, 1024u);
      for (int row = 0; row < kWarpgroupRows; ++row)
        for (int k = 0; k < 16; ++k) {
          const uint32_t tma = kSlot + Swizzle128B(ATmaOffset(wg * kWarpgroupRows + row, kk * 16 + k));
          ASSERT_EQ(Swizzle128B(KMajorAddress(f, row, k)), tma) << "wg " << wg << " kk " << kk << " row " << row;
        }
    }
}

TEST(GemmSm90Layout, BDescriptorsAddressWhereTmaPutEachElement) {
  for (int kk = 0; kk < kTileK / 16; ++kk) {
    const Fields f = Decode(BDescriptor(kSlot, kk));
    EXPECT_EQ(f.swizzle, 1u);
    EXPECT_EQ(f.lbo, uint32_t(kBBoxBytes));
    for (int n = 0; n < kTileN; ++n)
      for (int k = 0; k < 16; ++k) {
        const uint32_t tma = kSlot + Swizzle128B(BTmaOffset(kk * 16 + k, n));
        ASSERT_EQ(Swizzle128B(MnMajorAddress(f, n, k)), tma) << "kk " << kk << " n " << n << " k " << k;
      }
  }
}

// FP8 E4M3: one-byte elements, so a k32 step spans the same 32 bytes of a
// 128-byte row (T = 16 elements): K-major byte (row, k) of a step is start
// + (row % 8)·128 + (row / 8)·SBO + k. TMA writes A's box and bᵀ's box
// (128 rows of 128 bytes each) row-major with the 128B swizzle.
uint32_t Fp8KMajorAddress(const Fields& f, int row, int k) {
  return f.start + uint32_t(row % 8) * 128 + uint32_t(row / 8) * f.sbo + uint32_t(k);
}

TEST(GemmSm90Layout, Fp8DescriptorsOfAAndBTransposedAddressWhereTmaPutEachByte) {
  for (int kk = 0; kk < kFp8TileK / 32; ++kk) {
    for (int wg = 0; wg < 2; ++wg) {
      const Fields f = Decode(ADescriptor(kSlot, wg, kk));
      for (int row = 0; row < kWarpgroupRows; ++row)
        for (int k = 0; k < 32; ++k) {
          const uint32_t tma = kSlot + Swizzle128B(uint32_t((wg * kWarpgroupRows + row) * 128 + kk * 32 + k));
          ASSERT_EQ(Swizzle128B(Fp8KMajorAddress(f, row, k)), tma) << "A wg " << wg << " kk " << kk << " row " << row;
        }
    }
    const Fields f = Decode(BKMajorDescriptor(kSlot, kk));
    EXPECT_EQ(f.swizzle, 1u);
    EXPECT_EQ(f.sbo, 1024u);
    for (int n = 0; n < kTileN; ++n)
      for (int k = 0; k < 32; ++k) {
        const uint32_t tma = kSlot + Swizzle128B(uint32_t(n * 128 + kk * 32 + k));
        ASSERT_EQ(Swizzle128B(Fp8KMajorAddress(f, n, k)), tma) << "B kk " << kk << " n " << n << " k " << k;
      }
  }
}

// The wide tile (tile_n 256): four B boxes, read as two 128-column halves,
// each by the narrow descriptor at kBHalfBytes·h; every element of both
// halves lands where TMA put column 128·h + n. FP8: bᵀ's 256 rows in one
// box, the second half's descriptor 128 rows on.
TEST(GemmSm90Layout, TheWideTilesHalvesAreReadByTheNarrowDescriptors) {
  EXPECT_EQ(BBytesFor(kWideTileN), 4 * kBBoxBytes);
  EXPECT_EQ(BBytesFor(kTileN), kBBytes);
  for (int h = 0; h < kWideTileN / kTileN; ++h) {
    for (int kk = 0; kk < kTileK / 16; ++kk) {
      const Fields f = Decode(BDescriptor(kSlot + uint32_t(h * kBHalfBytes), kk));
      for (int n = 0; n < kTileN; ++n)
        for (int k = 0; k < 16; ++k) {
          const uint32_t tma = kSlot + Swizzle128B(BTmaOffset(kk * 16 + k, h * kTileN + n));
          ASSERT_EQ(Swizzle128B(MnMajorAddress(f, n, k)), tma) << "half " << h << " kk " << kk << " n " << n;
        }
    }
    for (int kk = 0; kk < kFp8TileK / 32; ++kk) {
      const Fields f = Decode(BKMajorDescriptor(kSlot + uint32_t(h * kBHalfBytes), kk));
      for (int n = 0; n < kTileN; ++n)
        for (int k = 0; k < 32; ++k) {
          const uint32_t tma = kSlot + Swizzle128B(uint32_t((h * kTileN + n) * 128 + kk * 32 + k));
          ASSERT_EQ(Swizzle128B(Fp8KMajorAddress(f, n, k)), tma) << "FP8 half " << h << " kk " << kk << " n " << n;
        }
    }
  }
  EXPECT_EQ(kBHalfBytes % 1024, 0) << "the second half starts where the swizzle pattern does";
}

TEST(GemmSm90Layout, SlotsAndBoxesStartOn1024ByteBoundaries) {
  // The 128B pattern is taken from address bits 4-9: TMA and wgmma agree only
  // when every box starts 1024-byte aligned.
  EXPECT_EQ(kABytes % 1024, 0);
  EXPECT_EQ(kBBoxBytes % 1024, 0);
  EXPECT_EQ((kWarpgroupRows * kTileK * 2) % 1024, 0);  // the second warpgroup's rows
}

}  // namespace
}  // namespace braid::cuda::gemm::sm90
