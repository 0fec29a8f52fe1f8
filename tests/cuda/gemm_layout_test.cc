// The GEMM core's shared-memory and register layouts (kernels/cuda/gemm/
// smem_swizzle.h, wgmma_desc.h, fragment_layout.h): the swizzles are
// bijections that keep 16-byte chunks whole, match the 128B pattern's
// definition and make ldmatrix phases conflict-free; the wgmma descriptor's
// fields land in their bits; the accumulator fragments cover their tiles once.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gemm/fragment_layout.h"
#include "gemm/smem_swizzle.h"
#include "gemm/wgmma_desc.h"

namespace braid::cuda::gemm {
namespace {

void ExpectBijectiveAndChunkPreserving(const XorSwizzle& s, const char* name) {
  std::vector<int> hit(s.period(), 0);
  for (uint32_t o = 0; o < s.period(); ++o) {
    const uint32_t p = s(o);
    ASSERT_LT(p, s.period()) << name;
    ++hit[p];
    EXPECT_EQ(p & 15u, o & 15u) << name << ": a byte left its 16-byte chunk";
    EXPECT_EQ(s(p), o) << name << ": the swizzle is its own inverse";
  }
  for (int h : hit) ASSERT_EQ(h, 1) << name;
  // Beyond one period the pattern repeats with the block's offset.
  EXPECT_EQ(s(s.period() + 48), s.period() + s(48)) << name;
}

TEST(GemmSwizzle, EveryPatternIsABijectionThatKeepsChunksWhole) {
  ExpectBijectiveAndChunkPreserving(kTma128B, "128B");
  ExpectBijectiveAndChunkPreserving(kSm80A, "sm80 A");
  ExpectBijectiveAndChunkPreserving(kSm80B, "sm80 B");
}

TEST(GemmSwizzle, Tma128BIsChunkXorRowWithinEach1024Bytes) {
  // CU_TENSOR_MAP_SWIZZLE_128B: 16-byte chunk c of 128-byte row r goes to chunk c ^ (r % 8).
  for (uint32_t row = 0; row < 16; ++row)
    for (uint32_t chunk = 0; chunk < 8; ++chunk)
      for (uint32_t byte : {0u, 7u, 15u}) {
        const uint32_t o = row * 128 + chunk * 16 + byte;
        EXPECT_EQ(kTma128B(o), row * 128 + ((chunk ^ (row % 8)) * 16) + byte);
        EXPECT_EQ(Swizzle128B(o), kTma128B(o));
      }
}

// Eight lanes of one ldmatrix phase read rows r0..r0+7 at the same logical
// chunk: their 16-byte bank groups must all differ.
void ExpectConflictFree(uint32_t (*swz)(uint32_t), uint32_t row_bytes, const char* name) {
  for (uint32_t r0 = 0; r0 < 64; r0 += 8)
    for (uint32_t chunk = 0; chunk < row_bytes / 16; ++chunk) {
      std::set<uint32_t> groups;
      for (uint32_t r = r0; r < r0 + 8; ++r) groups.insert(BankGroup16(swz(r * row_bytes + chunk * 16)));
      EXPECT_EQ(groups.size(), 8u) << name << " rows " << r0 << "+ chunk " << chunk;
    }
}

TEST(GemmSwizzle, LdmatrixPhasesAreConflictFree) {
  ExpectConflictFree(SwizzleSm80A, 64, "sm80 A (64-byte rows)");
  ExpectConflictFree(SwizzleSm80B, 256, "sm80 B (256-byte rows)");
  ExpectConflictFree(Swizzle128B, 128, "128B");
}

TEST(GemmSwizzle, UnswizzledRowsWouldConflict) {
  // Why the swizzle exists: plain 64-byte rows put rows r and r + 2 on one bank group.
  std::set<uint32_t> groups;
  for (uint32_t r = 0; r < 8; ++r) groups.insert(BankGroup16(r * 64));
  EXPECT_LT(groups.size(), 8u);
}

TEST(GemmWgmmaDescriptor, FieldsLandInTheirBits) {
  const uint64_t d = WgmmaDescriptor(0x12340, 16, 1024, WgmmaSwizzle::k128B);
  EXPECT_EQ(d & 0x3FFF, 0x12340u >> 4);
  EXPECT_EQ((d >> 16) & 0x3FFF, 1u);
  EXPECT_EQ((d >> 32) & 0x3FFF, 64u);
  EXPECT_EQ((d >> 49) & 0x7, 0u);  // base offset: tiles start 1024-byte aligned
  EXPECT_EQ(d >> 62, 1u);          // 128B swizzle
  EXPECT_EQ((d >> 14) & 0x3, 0u);
  EXPECT_EQ((d >> 30) & 0x3, 0u);
  // The B operand's LBO (the second 64-column box, 8 KiB away) and a k16 step of 2 KiB.
  const uint64_t b = WgmmaDescriptor(0x20000 + 2048, 8192, 1024, WgmmaSwizzle::k128B);
  EXPECT_EQ(b & 0x3FFF, (0x20000u + 2048u) >> 4);
  EXPECT_EQ((b >> 16) & 0x3FFF, 512u);
}

TEST(GemmFragments, Mma16816CoversItsTileOnce) {
  std::set<std::pair<int, int>> cells;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const FragPos p = Mma16816Acc(lane, i);
      ASSERT_LT(p.row, 16);
      ASSERT_LT(p.col, 8);
      EXPECT_TRUE(cells.insert({p.row, p.col}).second);
      if (i % 2 == 1) {
        EXPECT_EQ(p.col, Mma16816Acc(lane, i - 1).col + 1) << "pairs are adjacent columns";
      }
    }
  EXPECT_EQ(cells.size(), 128u);
}

TEST(GemmFragments, WgmmaM64N128CoversItsTileOnce) {
  std::set<std::pair<int, int>> cells;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 64; ++i) {
      const FragPos p = WgmmaAcc(t, i);
      ASSERT_LT(p.row, 64);
      ASSERT_LT(p.col, 128);
      EXPECT_TRUE(cells.insert({p.row, p.col}).second);
      if (i % 2 == 0) {
        EXPECT_EQ(p.col % 2, 0) << "a stored pair starts on an even column";
      }
    }
  EXPECT_EQ(cells.size(), 64u * 128u);
}

}  // namespace
}  // namespace braid::cuda::gemm
