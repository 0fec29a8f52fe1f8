// OpenBLAS is opened on first use (blas_library.h): it loads, and its
// product and the plain fallback loop agree with a double-precision sum on
// odd shapes, strides and beta. (That braid loads it only for a GEMM is
// tested on the command: tests/cli/startup_libraries_test.cc.)
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "blas_library.h"

namespace braid::cpu {
namespace {

TEST(CpuBlas, LoadsAndMatchesThePlainLoop) {
  ASSERT_TRUE(LoadBlas().ok()) << LoadBlas().message();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  // m x k times k x n, inside matrices wider than they are (lda, ldb, ldc
  // above the used width), for beta 0 and 1.
  for (const auto& [m, n, k] : {std::tuple{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 64, 64}}) {
    const int lda = k + 3, ldb = n + 2, ldc = n + 5;
    std::vector<float> a(size_t(m) * size_t(lda)), b(size_t(k) * size_t(ldb)), c0(size_t(m) * size_t(ldc));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    for (float& x : c0) x = u(rng);
    for (float beta : {0.0f, 1.0f}) {
      std::vector<float> blas = c0, plain = c0;
      Sgemm(m, n, k, a.data(), lda, b.data(), ldb, beta, blas.data(), ldc);
      PlainSgemm(m, n, k, a.data(), lda, b.data(), ldb, beta, plain.data(), ldc);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < ldc; ++j) {
          const size_t at = size_t(i) * size_t(ldc) + size_t(j);
          if (j >= n) {  // outside the product: untouched by both
            ASSERT_EQ(blas[at], c0[at]);
            ASSERT_EQ(plain[at], c0[at]);
            continue;
          }
          double want = beta * double(c0[at]);
          for (int p = 0; p < k; ++p)
            want += double(a[size_t(i) * size_t(lda) + size_t(p)]) * double(b[size_t(p) * size_t(ldb) + size_t(j)]);
          ASSERT_NEAR(blas[at], want, 1e-4 * (1 + k)) << m << "x" << n << "x" << k << " beta " << beta;
          ASSERT_NEAR(plain[at], want, 1e-5 * (1 + k));
        }
      }
    }
  }
}

}  // namespace
}  // namespace braid::cpu
