// The planners are right: every algorithm × op × P × chunks builds a plan that
// is well formed, cannot deadlock, computes the op's result and has no data
// race; and the plans have the shapes the algorithms promise (CommFuse's
// single add after the last GEMM, the ring's block order and data volume).
#include "braid/planner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/plan_check.h"

namespace braid {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

constexpr Algorithm kAlgorithms[] = {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing};
constexpr Op kOps[] = {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr};

OverlapConfig Config(Algorithm a, int chunks, int lanes, std::vector<int> splits = {}) {
  OverlapConfig cfg;
  cfg.algorithm = a;
  cfg.chunks = chunks;
  cfg.comm_lanes = lanes;
  cfg.splits = std::move(splits);
  return cfg;
}

std::string Describe(const Workload& w, const OverlapConfig& cfg) { return w.Describe() + " / " + cfg.Describe(); }

// Builds and checks one plan; returns false (with a test failure) if anything fails.
bool BuildsAndChecks(const Workload& w, const OverlapConfig& cfg) {
  Result<Plan> plan = BuildPlan(w, cfg);
  if (!plan.ok()) {
    ADD_FAILURE() << Describe(w, cfg) << ": BuildPlan: " << plan.status().message();
    return false;
  }
  const Status structure = CheckPlanStructure(*plan);
  if (!structure.ok()) {
    ADD_FAILURE() << Describe(w, cfg) << ": structure: " << structure.message();
    return false;
  }
  const Status semantics = CheckPlanSemantics(*plan);
  if (!semantics.ok()) {
    ADD_FAILURE() << Describe(w, cfg) << ": semantics: " << semantics.message();
    return false;
  }
  return true;
}

Plan MustBuild(const Workload& w, const OverlapConfig& cfg) {
  Result<Plan> plan = BuildPlan(w, cfg);
  EXPECT_TRUE(plan.ok()) << Describe(w, cfg) << ": " << plan.status().message();
  if (!plan.ok()) return Plan{};
  return std::move(plan).value();
}

TEST(Planner, EveryAlgorithmOpTpAndChunkCountBuildsACorrectPlan) {
  int built = 0, passed = 0;
  for (Algorithm algo : kAlgorithms) {
    for (Op op : kOps) {
      for (int p = 1; p <= 8; ++p) {
        const int max_chunks = algo == Algorithm::kSerial ? 1 : 8;
        for (int chunks = 1; chunks <= max_chunks; ++chunks) {
          for (int lanes = 1; lanes <= 3; ++lanes) {
            // Rows per chunk: 1 or 2, so half blocks (bidir_ring) split too.
            const int64_t rows_per = 1 + (p + chunks) % 2;
            const int64_t m = int64_t(p) * chunks * 2 * rows_per;
            const Workload w{op, m, 4 * int64_t(p), 4 * int64_t(p), DType::kBf16, p};
            ++built;
            if (BuildsAndChecks(w, Config(algo, chunks, lanes))) ++passed;
          }
        }
      }
    }
  }
  // serial: 3 ops × 8 P × 1 chunk × 3 lane counts; the other three: 3 × 8 × 8 × 3.
  EXPECT_EQ(built, 3 * 8 * 1 * 3 + 3 * (3 * 8 * 8 * 3));
  EXPECT_EQ(built, 1800);
  EXPECT_EQ(passed, built);
}

TEST(Planner, ChunkedWithUnevenSplitsBuildsACorrectPlan) {
  int built = 0, passed = 0, uneven = 0;
  for (Op op : kOps) {
    for (int p = 1; p <= 8; ++p) {
      for (int chunks = 2; chunks <= 6; ++chunks) {
        std::vector<int> splits;
        for (int i = 0; i < chunks; ++i) splits.push_back(1 + (2 * i) % 3);  // 1,3,2,1,3,2
        // 13 rows per rank block; gemm_ar (which splits all of M) also gets
        // an M that P does not divide.
        const int64_t m = 13 * int64_t(p) + (op == Op::kGemmAr ? 1 : 0);
        const Workload w{op, m, 2 * int64_t(p), 2 * int64_t(p), DType::kFp16, p};
        const OverlapConfig cfg = Config(Algorithm::kChunked, chunks, 1 + chunks % 3, splits);
        ++built;
        if (BuildsAndChecks(w, cfg)) ++passed;
        // The slices really are uneven: the first two gemms differ in rows.
        const Plan plan = MustBuild(w, cfg);
        if (!plan.ranks.empty()) {
          std::vector<int64_t> rows;
          for (const Step& s : plan.ranks[0].steps) {
            if (s.kind == StepKind::kGemm) rows.push_back(s.a.total_rows());
          }
          ASSERT_EQ(rows.size(), size_t(chunks));
          if (rows[0] != rows[1]) ++uneven;
        }
      }
    }
  }
  EXPECT_EQ(built, 3 * 8 * 5);
  EXPECT_EQ(passed, built);
  EXPECT_EQ(uneven, built);
}

TEST(Planner, OtherDtypesAndOddSizesBuildCorrectPlans) {
  int built = 0, passed = 0;
  for (DType dt : {DType::kBf16, DType::kFp16, DType::kFp32, DType::kFp8E4m3, DType::kFp8E5m2}) {
    for (Op op : kOps) {
      for (Algorithm algo : kAlgorithms) {
        // P=6, M/P=10 (ring sub-chunks of 5, bidir halves of 5), N and K odd multiples of P.
        const Workload w{op, 60, 18, 30, dt, 6};
        const int chunks = algo == Algorithm::kSerial ? 1 : algo == Algorithm::kBidirRing ? 5 : 2;
        ++built;
        if (BuildsAndChecks(w, Config(algo, chunks, 2))) ++passed;
      }
    }
  }
  EXPECT_EQ(built, 60);
  EXPECT_EQ(passed, built);
}

// Bytes each rank sends, summed over its send and collective steps.
int64_t SentBytes(const Plan& plan) {
  int64_t bytes = 0;
  for (const Step& s : plan.ranks[0].steps) {
    if (s.kind == StepKind::kSend || s.kind == StepKind::kCollective) bytes += s.bytes;
  }
  return bytes;
}

TEST(Planner, AnFp8AllGatherMovesHalfTheBytesAndItsReduceScatterTheSame) {
  for (Algorithm algo : kAlgorithms) {
    const int chunks = algo == Algorithm::kSerial ? 1 : 2;
    const Plan ag16 = MustBuild({Op::kAgGemm, 64, 32, 48, DType::kBf16, 4}, Config(algo, chunks, 2));
    const Plan ag8 = MustBuild({Op::kAgGemm, 64, 32, 48, DType::kFp8E4m3, 4}, Config(algo, chunks, 2));
    EXPECT_EQ(2 * SentBytes(ag8), SentBytes(ag16)) << AlgorithmName(algo);
    // The reduce-scatter moves bf16 partial sums either way.
    const Plan rs16 = MustBuild({Op::kGemmRs, 64, 32, 48, DType::kBf16, 4}, Config(algo, chunks, 2));
    const Plan rs8 = MustBuild({Op::kGemmRs, 64, 32, 48, DType::kFp8E5m2, 4}, Config(algo, chunks, 2));
    EXPECT_EQ(SentBytes(rs8), SentBytes(rs16)) << AlgorithmName(algo);
    EXPECT_GT(SentBytes(rs8), 0);
  }
}

TEST(Planner, FusedRefusesFp8E5m2AndLeavesE4m3ToTheBackend) {
  // No fused engine has an E5M2 GEMM; the cuda backend's GEMM core runs
  // E4M3 (sm_90a) and its tasks kernel refuses it (cuda_fp8_test.cc).
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kFused;
  const Status s = cfg.Validate({Op::kAgGemm, 64, 32, 48, DType::kFp8E5m2, 4});
  ASSERT_FALSE(s.ok());
  EXPECT_HAS(s, "fused has no fp8_e5m2 kernel");
  EXPECT_TRUE(cfg.Validate({Op::kAgGemm, 64, 32, 48, DType::kFp8E4m3, 4}).ok());
}

// Steps of a rank that run after `from` because of deps or lane order.
std::vector<bool> After(const Plan& plan, const RankPlan& rp, int from) {
  std::vector<bool> after(rp.steps.size(), false);
  std::vector<int> last(plan.lanes.size(), -1);
  for (const Step& s : rp.steps) {
    bool a = s.id == from;
    if (s.id > from) {
      for (int d : s.deps) a = a || after[size_t(d)];
      const int prev = last[size_t(s.lane)];
      a = a || (prev >= 0 && after[size_t(prev)]);
    }
    after[size_t(s.id)] = a;
    last[size_t(s.lane)] = s.id;
  }
  return after;
}

int LastGemm(const RankPlan& rp) {
  int last = -1;
  for (const Step& s : rp.steps) {
    if (s.kind == StepKind::kGemm) last = s.id;
  }
  return last;
}

TEST(Planner, RingCommFuseLeavesOnlyOneAddAfterTheLastGemm) {
  int plans = 0;
  for (Op op : {Op::kGemmRs, Op::kGemmAr}) {
    for (Algorithm algo : {Algorithm::kRing, Algorithm::kBidirRing}) {
      for (int p = 2; p <= 8; ++p) {
        for (int chunks = 1; chunks <= 4; ++chunks) {
          for (int lanes = 1; lanes <= 3; ++lanes) {
            const Workload w{op, int64_t(p) * chunks * 4, 8, 4 * int64_t(p), DType::kBf16, p};
            const Plan plan = MustBuild(w, Config(algo, chunks, lanes));
            ASSERT_EQ(plan.tp(), p);
            ++plans;
            for (int r = 0; r < p; ++r) {
              const RankPlan& rp = plan.ranks[size_t(r)];
              const int last = LastGemm(rp);
              ASSERT_GE(last, 0);
              const std::vector<bool> after = After(plan, rp, last);
              int reduces = 0, gemms = 0, transfers = 0, others = 0;
              for (const Step& s : rp.steps) {
                if (!after[size_t(s.id)] || s.id == last) continue;
                switch (s.kind) {
                  case StepKind::kReduce:
                    ++reduces;
                    break;
                  case StepKind::kGemm:
                    ++gemms;
                    break;
                  case StepKind::kSend:
                  case StepKind::kRecv:
                    ++transfers;
                    break;
                  default:
                    ++others;
                    break;
                }
              }
              SCOPED_TRACE(Describe(w, plan.config) + " rank " + std::to_string(r));
              EXPECT_EQ(reduces, 1);
              EXPECT_EQ(gemms, 0);
              EXPECT_EQ(others, 0);
              if (op == Op::kGemmRs) {
                EXPECT_EQ(transfers, 0);
              } else {
                EXPECT_GT(transfers, 0);  // the all-gather of finished blocks
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(plans, 2 * 2 * 7 * 4 * 3);
}

TEST(Planner, ChunkedGemmRsExposesAReduceScatterAfterItsLastGemm) {
  for (int p = 2; p <= 8; ++p) {
    for (int chunks = 1; chunks <= 4; ++chunks) {
      const Workload w{Op::kGemmRs, int64_t(p) * chunks * 2, 8, 4 * int64_t(p), DType::kBf16, p};
      const Plan plan = MustBuild(w, Config(Algorithm::kChunked, chunks, 2));
      for (const RankPlan& rp : plan.ranks) {
        const int last = LastGemm(rp);
        const std::vector<bool> after = After(plan, rp, last);
        int collectives = 0;
        for (const Step& s : rp.steps) {
          if (after[size_t(s.id)] && s.id != last && s.kind == StepKind::kCollective &&
              s.collective == CollectiveKind::kReduceScatter) {
            ++collectives;
            // The whole last slice of every block is still to be reduced.
            EXPECT_EQ(s.a.pieces, p);
          }
        }
        EXPECT_EQ(collectives, 1);
      }
    }
  }
}

TEST(Planner, RingGemmRsLastStepComputesOwnBlock) {
  for (Op op : {Op::kGemmRs, Op::kGemmAr}) {
    for (int p = 2; p <= 8; ++p) {
      const int64_t mb = 6;
      const Workload w{op, mb * p, 8, 4 * int64_t(p), DType::kBf16, p};
      const Plan plan = MustBuild(w, Config(Algorithm::kRing, 3, 2));
      for (int r = 0; r < p; ++r) {
        int gemms = 0;
        for (const Step& s : plan.ranks[size_t(r)].steps) {
          if (s.kind != StepKind::kGemm) continue;
          ++gemms;
          // Step s computes the partial for destination (r − s − 1) mod P.
          const int64_t want = ((r - s.ring_step - 1) % p + p) % p;
          EXPECT_EQ(s.a.row / mb, want) << "rank " << r << " step " << s.id;
          EXPECT_EQ((s.a.row + s.a.rows - 1) / mb, want);
          if (s.ring_step == p - 1) {
            EXPECT_EQ(want, r);
          }
        }
        EXPECT_EQ(gemms, p * 3);
      }
    }
  }
}

TEST(Planner, RingAgGemmMultipliesBlockRMinusSAtStepS) {
  for (int p = 1; p <= 8; ++p) {
    for (int chunks = 1; chunks <= 3; ++chunks) {
      const int64_t mb = 6;
      const Workload w{Op::kAgGemm, mb * p, 2 * int64_t(p), 16, DType::kBf16, p};
      const Plan plan = MustBuild(w, Config(Algorithm::kRing, chunks, 1));
      for (int r = 0; r < p; ++r) {
        std::vector<int> per_step(size_t(p), 0);
        for (const Step& s : plan.ranks[size_t(r)].steps) {
          if (s.kind != StepKind::kGemm) continue;
          ASSERT_GE(s.ring_step, 0);
          ASSERT_LT(s.ring_step, p);
          ++per_step[size_t(s.ring_step)];
          const int64_t want = ((r - s.ring_step) % p + p) % p;
          EXPECT_EQ(s.a.row / mb, want) << "P=" << p << " rank " << r << " step " << s.id;
          EXPECT_EQ((s.a.row + s.a.rows - 1) / mb, want);
          EXPECT_EQ(s.c.row, s.a.row);  // product rows land where their A rows are
        }
        for (int st = 0; st < p; ++st) EXPECT_EQ(per_step[size_t(st)], chunks);
      }
    }
  }
}

TEST(Planner, BidirRingAgGemmSendsTheHalvesBothWays) {
  const int p = 4;
  const int64_t mb = 8;
  const Workload w{Op::kAgGemm, mb * p, 8, 16, DType::kBf16, p};
  const Plan plan = MustBuild(w, Config(Algorithm::kBidirRing, 2, 2));
  for (int r = 0; r < p; ++r) {
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      const bool upper =
          s.kind == StepKind::kGemm || s.kind == StepKind::kSend ? (s.a.row % mb) < mb / 2 : (s.c.row % mb) < mb / 2;
      const int sign = upper ? +1 : -1;  // first half travels r→r+1, second half r→r−1
      if (s.kind == StepKind::kGemm) {
        EXPECT_EQ(s.a.row / mb, ((r - sign * s.ring_step) % p + p) % p);
      } else if (s.kind == StepKind::kSend) {
        EXPECT_EQ(s.peer, ((r + sign) % p + p) % p);
      } else if (s.kind == StepKind::kRecv) {
        EXPECT_EQ(s.peer, ((r - sign) % p + p) % p);
      }
    }
  }
}

int64_t SendBytes(const RankPlan& rp) {
  int64_t bytes = 0;
  for (const Step& s : rp.steps) {
    if (s.kind == StepKind::kSend) bytes += s.bytes;
  }
  return bytes;
}

TEST(Planner, RingMovesPMinusOneBlocksPerRank) {
  for (Algorithm algo : {Algorithm::kRing, Algorithm::kBidirRing}) {
    for (Op op : kOps) {
      for (int p = 1; p <= 8; ++p) {
        for (int chunks = 1; chunks <= 3; ++chunks) {
          const int64_t mb = 2 * chunks * 3;
          const Workload w{op, mb * p, 8 * int64_t(p), 4 * int64_t(p), DType::kFp32, p};
          const Plan plan = MustBuild(w, Config(algo, chunks, 2));
          // ag_gemm moves blocks of A (mb × K); the others blocks of C (mb × N).
          const int64_t block = mb * (op == Op::kAgGemm ? w.k : w.n) * DTypeBytes(w.dtype);
          // gemm_ar is a reduce-scatter and an all-gather: twice the volume.
          const int64_t want = (op == Op::kGemmAr ? 2 : 1) * int64_t(p - 1) * block;
          for (int r = 0; r < p; ++r) {
            EXPECT_EQ(SendBytes(plan.ranks[size_t(r)]), want) << Describe(w, plan.config) << " rank " << r;
          }
        }
      }
    }
  }
}

Status Validation(Op op, int64_t m, int p, Algorithm algo, int chunks, std::vector<int> splits = {}) {
  const Workload w{op, m, 8 * int64_t(p), 8 * int64_t(p), DType::kBf16, p};
  Result<Plan> plan = BuildPlan(w, Config(algo, chunks, 1, std::move(splits)));
  EXPECT_FALSE(plan.ok()) << Describe(w, Config(algo, chunks, 1));
  if (!plan.ok()) {
    EXPECT_TRUE(plan.status().is_user_error());
  }
  return plan.status();
}

TEST(Planner, RejectsChunksThatExceedTheRows) {
  EXPECT_HAS(Validation(Op::kAgGemm, 8, 4, Algorithm::kRing, 3), "chunks=3 exceeds the rows per rank block (M/P) (2)");
  EXPECT_HAS(Validation(Op::kGemmRs, 8, 2, Algorithm::kChunked, 5),
             "chunks=5 exceeds the rows per rank block (M/P) (4)");
  EXPECT_HAS(Validation(Op::kGemmAr, 4, 2, Algorithm::kChunked, 5), "chunks=5 exceeds the rows of M (4)");
  EXPECT_HAS(Validation(Op::kGemmRs, 16, 2, Algorithm::kBidirRing, 5),
             "chunks=5 exceeds the rows per half block (M/P/2) (4)");
}

TEST(Planner, RejectsUnevenChunksWithoutSplits) {
  const Status st = Validation(Op::kAgGemm, 40, 4, Algorithm::kChunked, 3);
  EXPECT_HAS(st, "chunks=3 does not divide the rows per rank block (M/P) (10) evenly");
  EXPECT_HAS(st, "; use `splits` to say how to cut them");
  // With splits the same cut is fine.
  const Workload w{Op::kAgGemm, 40, 32, 32, DType::kBf16, 4};
  EXPECT_TRUE(BuildPlan(w, Config(Algorithm::kChunked, 3, 1, {1, 1, 1})).ok());
  EXPECT_HAS(Validation(Op::kAgGemm, 40, 4, Algorithm::kChunked, 3, {1, 1}), "`splits` has 2 weights but chunks=3");
}

TEST(Planner, RingUnevenSubChunksDoNotSuggestSplits) {
  // Ring sub-chunks take no weights, so the message must not send the caller to `splits`.
  const Status st = Validation(Op::kGemmRs, 40, 4, Algorithm::kRing, 3);
  EXPECT_HAS(st, "chunks=3 does not divide the rows per rank block (M/P) (10) evenly");
  EXPECT_EQ(st.message().find("splits"), std::string::npos) << st.message();
}

TEST(Planner, RejectsBidirRingWithOddBlocks) {
  EXPECT_HAS(Validation(Op::kGemmRs, 12, 4, Algorithm::kBidirRing, 1),
             "bidir_ring halves each rank block: M/P=3 must be even");
  EXPECT_HAS(Validation(Op::kGemmAr, 10, 2, Algorithm::kBidirRing, 1), "M/P=5 must be even");
}

TEST(Planner, RejectsSerialWithChunksRingWithSplitsAndZeroChunks) {
  EXPECT_HAS(Validation(Op::kGemmRs, 16, 2, Algorithm::kSerial, 2),
             "serial runs the collective whole: it takes no `chunks` or `splits`");
  EXPECT_HAS(Validation(Op::kGemmRs, 16, 2, Algorithm::kRing, 2, {1, 1}),
             "`splits` applies to the chunked algorithm only");
  EXPECT_HAS(Validation(Op::kGemmRs, 16, 2, Algorithm::kBidirRing, 2, {1, 1}),
             "`splits` applies to the chunked algorithm only");
  for (Algorithm algo : kAlgorithms) {
    EXPECT_HAS(Validation(Op::kAgGemm, 16, 2, algo, 0), "`chunks` must be at least 1 (got 0)");
  }
  EXPECT_HAS(Validation(Op::kGemmAr, 15, 2, Algorithm::kRing, 1),
             "ring needs M=15 divisible by P=2 (one block per rank)");
}

}  // namespace
}  // namespace braid
