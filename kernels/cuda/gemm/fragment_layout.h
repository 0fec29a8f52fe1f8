// Where each accumulator register of a thread lands in the output tile: the
// fixed fragment layouts of mma.sync.m16n8k16 (sm_80) and wgmma m64nNk16
// (sm_90a) with fp32 accumulators (PTX ISA, "Matrix fragments"). The
// epilogues store through these functions, and the host tests check that the
// threads of a warp / warpgroup cover their tile exactly once.
#pragma once

#include "gemm/gemm_hd.h"

namespace braid::cuda::gemm {

struct FragPos {
  int row = 0, col = 0;
};

// mma.sync m16n8k16, accumulator c[i] (i in 0..3) of `lane`: rows lane/4 and
// lane/4 + 8, two adjacent columns — so c[0], c[1] (and c[2], c[3]) are one
// 4-byte pair in a 2-byte output.
BRAID_GEMM_HD FragPos Mma16816Acc(int lane, int i) { return FragPos{lane / 4 + 8 * (i / 2), (lane % 4) * 2 + (i % 2)}; }

// wgmma m64nNk16, accumulator d[i] (i in 0..N/2-1) of thread `t` of the
// warpgroup (0..127): warp t/32 owns rows 16·warp.., and each 8-column block
// j = i/4 repeats the m16n8 pattern above.
BRAID_GEMM_HD FragPos WgmmaAcc(int t, int i) {
  const FragPos p = Mma16816Acc(t % 32, i % 4);
  return FragPos{(t / 32) * 16 + p.row, (i / 4) * 8 + p.col};
}

}  // namespace braid::cuda::gemm
