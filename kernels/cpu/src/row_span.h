// A plan Region over real memory: `pieces` runs of `rows` full-width rows of
// a row-major fp32 matrix, piece p starting at row0 + p·stride. Rows are
// numbered 0..total_rows()-1 across pieces ("flattened" rows).
#pragma once

#include <cstdint>

namespace braid {

struct RowSpan {
  float* base = nullptr;  // row 0 of the matrix
  int64_t cols = 0;       // row length = leading dimension
  int64_t row0 = 0;
  int64_t rows = 0;  // rows per piece
  int pieces = 1;
  int64_t stride = 0;

  static RowSpan Dense(float* data, int64_t rows, int64_t cols) { return {data, cols, 0, rows, 1, 0}; }

  int64_t total_rows() const { return rows * pieces; }
  int64_t elements() const { return total_rows() * cols; }
  // Flattened row i.
  float* row(int64_t i) const;
  // Rows [i, i+n) as one pointer when they are adjacent in memory, else null.
  float* contiguous(int64_t i, int64_t n) const;
};

// dst[0 .. n·cols) = flattened rows [i, i+n) of s.
void CopyRowsOut(const RowSpan& s, int64_t i, int64_t n, float* dst);
// Flattened rows [i, i+n) of s = src[0 .. n·cols).
void CopyRowsIn(const float* src, const RowSpan& s, int64_t i, int64_t n);
// acc[0 .. n·cols) += flattened rows [i, i+n) of s.
void AddRowsTo(const RowSpan& s, int64_t i, int64_t n, float* acc);

}  // namespace braid
