#include <algorithm>
#include <cstdint>

#include "braid/blaslt_api.h"

namespace braid::cuda {

namespace {

int Alignment(DevPtr p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  int align = 0;
  for (int a = 16; a <= 256; a *= 2) {
    if (at % uintptr_t(a) == 0) align = a;
  }
  return align;
}

}  // namespace

MatmulKey KeyOf(const MatmulArgs& m) {
  MatmulKey key;
  key.m = m.m, key.n = m.n, key.k = m.k;
  key.lda = m.lda, key.ldb = m.ldb, key.ldc = m.ldc;
  key.dtype = m.dtype;
  key.b_dtype = IsFp8(m.dtype) ? m.fp8.b : m.dtype;
  key.sm_count_target = m.sm_count_target;
  key.tf32 = m.tf32;
  int align = 256;
  for (DevPtr p : {m.a, m.b, m.c}) align = std::min(align, Alignment(p));
  key.align = align;
  return key;
}

}  // namespace braid::cuda
