#include "row_span.h"

#include <cstring>

namespace braid {

float* RowSpan::row(int64_t i) const {
  const int64_t piece = i / rows;
  return base + (row0 + piece * stride + i % rows) * cols;
}

float* RowSpan::contiguous(int64_t i, int64_t n) const {
  if (n <= 0) return base;
  if (i / rows == (i + n - 1) / rows || stride == rows) return row(i);
  return nullptr;
}

void CopyRowsOut(const RowSpan& s, int64_t i, int64_t n, float* dst) {
  const size_t row_bytes = size_t(s.cols) * sizeof(float);
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * s.cols, s.row(i + j), row_bytes);
}

void CopyRowsIn(const float* src, const RowSpan& s, int64_t i, int64_t n) {
  const size_t row_bytes = size_t(s.cols) * sizeof(float);
  for (int64_t j = 0; j < n; ++j) std::memcpy(s.row(i + j), src + j * s.cols, row_bytes);
}

void AddRowsTo(const RowSpan& s, int64_t i, int64_t n, float* acc) {
  for (int64_t j = 0; j < n; ++j) {
    const float* src = s.row(i + j);
    float* out = acc + j * s.cols;
    for (int64_t k = 0; k < s.cols; ++k) out[k] += src[k];
  }
}

}  // namespace braid
