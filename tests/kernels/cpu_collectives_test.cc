// Ring collectives on real threads: exact sums (small integers) for every P,
// uneven and empty all-reduce segments, in-place and strided layouts.
#include <gtest/gtest.h>

#include <vector>

#include "braid/cpu_transport.h"
#include "cpu_collectives.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

constexpr int64_t kCols = 3;

// Rank q's value at row i, column j: small integers, so every sum is exact.
float V(int q, int64_t i, int64_t j) { return float(q * 100 + i * 4 + j); }

std::vector<float> RankData(int q, int64_t rows) {
  std::vector<float> d(size_t(rows * kCols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < kCols; ++j) d[size_t(i * kCols + j)] = V(q, i, j);
  }
  return d;
}

float SumOver(int p, int64_t i, int64_t j) {
  float s = 0;
  for (int q = 0; q < p; ++q) s += V(q, i, j);
  return s;
}

RingComm Comm(CpuTransport& t, int rank, int p, int64_t match, std::vector<float>* scratch) {
  return RingComm{&t, rank, p, match, scratch};
}

TEST(CpuCollectives, AllGather) {
  for (int p = 1; p <= 8; ++p) {
    CpuTransport t(p);
    const int64_t n = 2;
    std::vector<std::vector<float>> c(size_t(p), std::vector<float>(size_t(p * n * kCols), -1));
    testing::OnRanks(p, [&](int r) {
      std::vector<float> a = RankData(r, n), scratch;
      auto sent = RingAllGather(Comm(t, r, p, 0, &scratch), RowSpan::Dense(a.data(), n, kCols),
                                RowSpan::Dense(c[size_t(r)].data(), p * n, kCols));
      ASSERT_TRUE(sent.ok()) << sent.status().message();
      EXPECT_EQ(*sent, (p - 1) * n * kCols * 4);
    });
    for (int r = 0; r < p; ++r) {
      for (int q = 0; q < p; ++q) {
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < kCols; ++j) {
            ASSERT_EQ(c[size_t(r)][size_t((q * n + i) * kCols + j)], V(q, i, j)) << "P=" << p << " rank " << r;
          }
        }
      }
    }
  }
}

TEST(CpuCollectives, AllGatherInPlaceIntoStridedPieces) {
  // Like a chunked ag_gemm: c is P pieces of n rows at stride 5 inside a
  // bigger buffer, and a is this rank's own piece of c.
  for (int p = 1; p <= 8; ++p) {
    CpuTransport t(p);
    const int64_t n = 2, stride = 5;
    std::vector<std::vector<float>> buf(size_t(p), std::vector<float>(size_t(p * stride * kCols), -1));
    testing::OnRanks(p, [&](int r) {
      float* base = buf[size_t(r)].data();
      const std::vector<float> own = RankData(r, n);
      std::copy(own.begin(), own.end(), base + (1 + r * stride) * kCols);
      const RowSpan c{base, kCols, 1, n, p, stride};
      const RowSpan a{base, kCols, 1 + r * stride, n, 1, 0};
      std::vector<float> scratch;
      auto sent = RingAllGather(Comm(t, r, p, 3, &scratch), a, c);
      ASSERT_TRUE(sent.ok()) << sent.status().message();
    });
    for (int r = 0; r < p; ++r) {
      for (int64_t row = 0; row < p * stride; ++row) {
        const int q = int(row / stride);
        const int64_t i = row % stride - 1;
        for (int64_t j = 0; j < kCols; ++j) {
          const float want = (i >= 0 && i < n) ? V(q, i, j) : -1.0f;  // rows outside c untouched
          ASSERT_EQ(buf[size_t(r)][size_t(row * kCols + j)], want) << "P=" << p << " rank " << r << " row " << row;
        }
      }
    }
  }
}

TEST(CpuCollectives, ReduceScatter) {
  for (int p = 1; p <= 8; ++p) {
    CpuTransport t(p);
    const int64_t n = 3;
    std::vector<std::vector<float>> c(size_t(p), std::vector<float>(size_t(n * kCols), -1));
    testing::OnRanks(p, [&](int r) {
      std::vector<float> a = RankData(r, p * n), scratch;
      const std::vector<float> before = a;
      auto sent = RingReduceScatter(Comm(t, r, p, 1, &scratch), RowSpan::Dense(a.data(), p * n, kCols),
                                    RowSpan::Dense(c[size_t(r)].data(), n, kCols));
      ASSERT_TRUE(sent.ok()) << sent.status().message();
      EXPECT_EQ(*sent, (p - 1) * n * kCols * 4);
      EXPECT_EQ(a, before);  // the input is left alone
    });
    for (int r = 0; r < p; ++r) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < kCols; ++j) {
          ASSERT_EQ(c[size_t(r)][size_t(i * kCols + j)], SumOver(p, r * n + i, j)) << "P=" << p << " rank " << r;
        }
      }
    }
  }
}

void CheckAllReduce(int p, int64_t rows, bool in_place) {
  CpuTransport t(p);
  std::vector<std::vector<float>> c(size_t(p), std::vector<float>(size_t(rows * kCols), -1));
  testing::OnRanks(p, [&](int r) {
    std::vector<float> a = RankData(r, rows), scratch;
    if (in_place) c[size_t(r)] = a;
    const RowSpan cs = RowSpan::Dense(c[size_t(r)].data(), rows, kCols);
    const RowSpan as = in_place ? cs : RowSpan::Dense(a.data(), rows, kCols);
    auto sent = RingAllReduce(Comm(t, r, p, 2, &scratch), as, cs);
    ASSERT_TRUE(sent.ok()) << sent.status().message();
  });
  for (int r = 0; r < p; ++r) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < kCols; ++j) {
        ASSERT_EQ(c[size_t(r)][size_t(i * kCols + j)], SumOver(p, i, j))
            << "P=" << p << " rows " << rows << " rank " << r << " row " << i;
      }
    }
  }
}

TEST(CpuCollectives, AllReduceAnyRowCount) {
  for (int p = 1; p <= 8; ++p) {
    for (int64_t rows : {int64_t(2 * p), int64_t(2 * p + 1), int64_t(3 * p - 1), int64_t(1), int64_t(p - 1)}) {
      if (rows == 0) continue;
      CheckAllReduce(p, rows, false);  // rows < P leaves some segments empty
      CheckAllReduce(p, rows, true);
    }
  }
}

TEST(CpuCollectives, ConcurrentCollectivesStayApart) {
  // Two lanes per rank run different collectives at once; the match keeps
  // their messages apart.
  const int p = 4;
  const int64_t n = 2;
  CpuTransport t(p);
  std::vector<std::vector<float>> ag(size_t(p), std::vector<float>(size_t(p * n * kCols)));
  std::vector<std::vector<float>> ar(size_t(p), std::vector<float>(size_t(n * kCols)));
  testing::OnRanks(2 * p, [&](int id) {
    const int r = id % p;
    std::vector<float> a = RankData(r, n), scratch;
    const RowSpan as = RowSpan::Dense(a.data(), n, kCols);
    Result<int64_t> res =
        id < p ? RingAllGather(Comm(t, r, p, 10, &scratch), as, RowSpan::Dense(ag[size_t(r)].data(), p * n, kCols))
               : RingAllReduce(Comm(t, r, p, 11, &scratch), as, RowSpan::Dense(ar[size_t(r)].data(), n, kCols));
    ASSERT_TRUE(res.ok()) << res.status().message();
  });
  for (int r = 0; r < p; ++r) {
    for (int64_t j = 0; j < kCols; ++j) {
      EXPECT_EQ(ag[size_t(r)][size_t((3 * n + 1) * kCols + j)], V(3, 1, j));
      EXPECT_EQ(ar[size_t(r)][size_t(kCols + j)], SumOver(p, 1, j));
    }
  }
}

TEST(CpuCollectives, MismatchedShapesAreAnError) {
  CpuTransport t(2);
  std::vector<float> a(6), c(6), scratch;
  const RingComm x{&t, 0, 2, 0, &scratch};
  EXPECT_FALSE(RingAllGather(x, RowSpan::Dense(a.data(), 2, 3), RowSpan::Dense(c.data(), 2, 3)).ok());
  EXPECT_FALSE(RingReduceScatter(x, RowSpan::Dense(a.data(), 2, 3), RowSpan::Dense(c.data(), 2, 3)).ok());
  EXPECT_FALSE(RingAllReduce(x, RowSpan::Dense(a.data(), 2, 3), RowSpan::Dense(c.data(), 3, 2)).ok());
}

TEST(CpuCollectives, TagsAreDisjointFromPlanMatches) {
  EXPECT_GE(CollectiveTag(0, 0), uint64_t{1} << 62);
  EXPECT_NE(CollectiveTag(1, 0), CollectiveTag(0, 1));
  EXPECT_NE(CollectiveTag(5, 3), CollectiveTag(5, 4));
}

}  // namespace
}  // namespace braid
