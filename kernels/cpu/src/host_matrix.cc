#include "braid/host_matrix.h"

namespace braid {

namespace {

// SplitMix64 finaliser: a counter-based generator, so every element is a
// pure function of its coordinates (reproducible, order independent).
uint64_t Mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

HostMatrix RandomMatrix(int64_t rows, int64_t cols, uint64_t seed, uint64_t stream) {
  HostMatrix m(rows, cols);
  const uint64_t key = Mix(Mix(seed) ^ (stream * 0xd1b54a32d192ed03ull));
  const int64_t count = rows * cols;
  for (int64_t i = 0; i < count; ++i) {
    // 24 random bits → [0, 1) exactly representable in fp32, then [-1, 1].
    const float u = float(Mix(key ^ uint64_t(i)) >> 40) * (1.0f / 16777216.0f);
    m.data[size_t(i)] = 2.0f * u - 1.0f;
  }
  return m;
}

}  // namespace braid
