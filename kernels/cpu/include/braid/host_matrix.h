// A dense row-major fp32 matrix in host memory, and the deterministic inputs
// the cpu backend runs on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace braid {

struct HostMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> data;

  HostMatrix() = default;
  HostMatrix(int64_t r, int64_t c) : rows(r), cols(c), data(std::size_t(r * c), 0.0f) {}
  float* row(int64_t i) { return data.data() + i * cols; }
  const float* row(int64_t i) const { return data.data() + i * cols; }
};

// Uniform in [-1, 1]; element (i, j) depends only on (seed, stream, i, j).
HostMatrix RandomMatrix(int64_t rows, int64_t cols, uint64_t seed, uint64_t stream);

}  // namespace braid
