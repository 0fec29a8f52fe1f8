#include "braid/fused_schedule.h"

#include <algorithm>
#include <limits>

namespace braid::cuda::fused {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tasks of one kind in their global order, before they are dealt to CTAs.
struct Pending {
  FusedTask task;
  std::vector<FlagRef> waits;
};

// Deals `list` round-robin over CTAs [first, first + count) of `per_cta`.
void Deal(const std::vector<Pending>& list, int first, int count, std::vector<std::vector<Pending>>& per_cta) {
  for (size_t i = 0; i < list.size(); ++i) per_cta[size_t(first) + i % size_t(count)].push_back(list[i]);
}

FusedTask Tile(int32_t kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols) {
  FusedTask t;
  t.kind = kind;
  t.row0 = int32_t(row0);
  t.rows = int32_t(rows);
  t.col0 = int32_t(col0);
  t.cols = int32_t(cols);
  return t;
}

// The row tiles of block q: [start, rows) pairs.
std::vector<std::pair<int64_t, int64_t>> RowTiles(const FusedShape& s, int q) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const int64_t mb = s.block_rows();
  for (int64_t i = 0; i < mb; i += kTileM) out.push_back({q * mb + i, std::min<int64_t>(kTileM, mb - i)});
  return out;
}

// gemm_rs: the flag of the partial tile (block q, row tile i, col tile j).
int32_t PartialFlag(const FusedShape& s, int q, int64_t i, int64_t j) {
  const int64_t rt = CeilDiv(s.block_rows(), kTileM), ct = CeilDiv(s.n, kTileN);
  return int32_t((q * rt + i) * ct + j);
}

}  // namespace

int DefaultCommCtas(int ranks, int ctas) { return std::max(1, std::min({ranks, 8, ctas / 2})); }

Status CheckFusedShape(const FusedShape& s, DType dtype, int sms_per_rank) {
  if (s.ranks < 2 || s.ranks > kMaxRanks) {
    return Status::Invalid("the fused kernel runs 2 to " + std::to_string(kMaxRanks) + " ranks, not " +
                           std::to_string(s.ranks));
  }
  if (dtype == DType::kFp32) {
    return Status::Invalid("the fused kernel computes bf16 or fp16 (mma tile loop); use `dtype` bf16|fp16");
  }
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.m % s.ranks != 0) {
    return Status::Invalid("the fused kernel needs M divisible by P=" + std::to_string(s.ranks) +
                           " (got M=" + std::to_string(s.m) + ")");
  }
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (s.m * s.k > kMax || s.k * s.n > kMax || s.m * s.n > kMax) {
    return Status::Invalid("the fused kernel indexes with 32 bits: M·K, K·N and M·N (local) must stay below 2^31");
  }
  if (s.comm_ctas < 1 || s.comm_ctas > kMaxCommCtas) {
    return Status::Invalid("`comm_sms` " + std::to_string(s.comm_ctas) + " is outside the fused kernel's 1.." +
                           std::to_string(kMaxCommCtas) + " comm CTAs");
  }
  if (s.compute_ctas < 1 || s.comm_ctas + s.compute_ctas > sms_per_rank) {
    return Status::Invalid("`comm_sms` " + std::to_string(s.comm_ctas) + " leaves no SM for the fused GEMM (" +
                           std::to_string(sms_per_rank) + " SMs per rank)");
  }
  return Status::Ok();
}

RankTables BuildRankTables(const FusedShape& s, int r) {
  const int p = s.ranks;
  const int64_t ct = CeilDiv(s.n, kTileN);
  std::vector<Pending> comm, compute;
  int32_t flags = 0;
  if (s.op == FusedOp::kAgGemm) {
    // Own block first: its rows are here already.
    for (const auto& [row0, rows] : RowTiles(s, r)) {
      for (int64_t j = 0; j < ct; ++j) {
        compute.push_back({Tile(kGemmTile, row0, rows, j * kTileN, std::min<int64_t>(kTileN, s.n - j * kTileN)), {}});
      }
    }
    for (int d = 1; d < p; ++d) {
      const int q = (r + d) % p;
      for (const auto& [row0, rows] : RowTiles(s, q)) {
        Pending pull{Tile(kPullRows, row0, rows, 0, s.k), {}};
        pull.task.src = q;
        pull.task.sets = flags;
        comm.push_back(pull);
        for (int64_t j = 0; j < ct; ++j) {
          compute.push_back(
              {Tile(kGemmTile, row0, rows, j * kTileN, std::min<int64_t>(kTileN, s.n - j * kTileN)), {{r, flags}}});
        }
        ++flags;
      }
    }
  } else {
    // Other ranks' blocks first (they travel), own block last.
    for (int d = 1; d <= p; ++d) {
      const int q = (r + d) % p;
      const auto tiles = RowTiles(s, q);
      for (size_t i = 0; i < tiles.size(); ++i) {
        for (int64_t j = 0; j < ct; ++j) {
          Pending g{
              Tile(kGemmTile, tiles[i].first, tiles[i].second, j * kTileN, std::min<int64_t>(kTileN, s.n - j * kTileN)),
              {}};
          g.task.sets = PartialFlag(s, q, int64_t(i), j);
          compute.push_back(g);
        }
      }
    }
    flags = int32_t(p * CeilDiv(s.block_rows(), kTileM) * ct);
    const auto own = RowTiles(s, r);
    for (size_t i = 0; i < own.size(); ++i) {
      for (int64_t j = 0; j < ct; ++j) {
        Pending red{
            Tile(kReduceTile, own[i].first, own[i].second, j * kTileN, std::min<int64_t>(kTileN, s.n - j * kTileN)),
            {}};
        // Nearest-computing rank first: rank r - d computes block r at its step d.
        for (int d = 1; d <= p; ++d) red.waits.push_back({(r - d % p + p) % p, PartialFlag(s, r, int64_t(i), j)});
        comm.push_back(red);
      }
    }
  }
  std::vector<std::vector<Pending>> per_cta(size_t(s.comm_ctas + s.compute_ctas));
  Deal(comm, 0, s.comm_ctas, per_cta);
  Deal(compute, s.comm_ctas, s.compute_ctas, per_cta);
  RankTables t;
  t.flags = flags;
  t.comm_ctas = s.comm_ctas;
  for (const auto& list : per_cta) {
    t.cta_begin.push_back(int32_t(t.tasks.size()));
    for (const Pending& pd : list) {
      FusedTask task = pd.task;
      task.wait_begin = int32_t(t.waits.size());
      task.wait_count = int32_t(pd.waits.size());
      t.waits.insert(t.waits.end(), pd.waits.begin(), pd.waits.end());
      t.tasks.push_back(task);
    }
  }
  t.cta_begin.push_back(int32_t(t.tasks.size()));
  return t;
}

std::vector<RankTables> BuildAllTables(const FusedShape& s) {
  std::vector<RankTables> out;
  for (int r = 0; r < s.ranks; ++r) out.push_back(BuildRankTables(s, r));
  return out;
}

}  // namespace braid::cuda::fused
