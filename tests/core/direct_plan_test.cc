// The direct planner: every transfer goes straight to its owner (step s: to
// r+s, from r−s), its plans are proven by the plan checker for every op it
// takes, P, sub-chunk count, lane count and dtype, and gemm_ar is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "braid/plan_check.h"
#include "braid/planner.h"

namespace braid {
namespace direct_plan_test {
namespace {

OverlapConfig Direct(int chunks, int lanes) {
  OverlapConfig c;
  c.algorithm = Algorithm::kDirect;
  c.chunks = chunks;
  c.comm_lanes = lanes;
  return c;
}

Plan MustBuild(const Workload& w, const OverlapConfig& c) {
  Result<Plan> plan = BuildPlan(w, c);
  EXPECT_TRUE(plan.ok()) << w.Describe() << " " << c.Describe() << ": " << plan.status().message();
  return plan.ok() ? std::move(plan).value() : Plan{};
}

int Mod(int a, int p) { return ((a % p) + p) % p; }

TEST(DirectPlan, EveryOpTpSubChunkLaneAndDtypeIsProven) {
  int proven = 0;
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (DType dt : {DType::kBf16, DType::kFp32, DType::kFp8E4m3}) {
      for (int p = 1; p <= 8; ++p) {
        for (int chunks = 1; chunks <= 4; ++chunks) {
          for (int lanes = 1; lanes <= 3; ++lanes) {
            const Workload w{op, int64_t(p) * chunks * 3, 4 * int64_t(p), 4 * int64_t(p), dt, p};
            const Plan plan = MustBuild(w, Direct(chunks, lanes));
            SCOPED_TRACE(w.Describe() + " " + plan.config.Describe());
            ASSERT_EQ(plan.tp(), p);
            const Status structure = CheckPlanStructure(plan);
            ASSERT_TRUE(structure.ok()) << structure.message();
            const Status semantics = CheckPlanSemantics(plan);
            ASSERT_TRUE(semantics.ok()) << semantics.message();
            ++proven;
          }
        }
      }
    }
  }
  EXPECT_EQ(proven, 2 * 3 * 8 * 4 * 3);
}

// Each step is a permutation: at step s every rank sends to r+s and
// receives from r−s, so every rank sends to and hears from each peer once
// per sub-chunk, and nothing is passed on.
TEST(DirectPlan, StepSSendsToRPlusSAndReceivesFromRMinusS) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (int p = 2; p <= 8; ++p) {
      const int chunks = 2;
      const int64_t mb = 4;
      const Workload w{op, mb * p, 4 * int64_t(p), 4 * int64_t(p), DType::kBf16, p};
      const Plan plan = MustBuild(w, Direct(chunks, 2));
      ASSERT_EQ(plan.tp(), p);
      for (int r = 0; r < p; ++r) {
        std::multiset<int> sent_to, heard_from;
        for (const Step& s : plan.ranks[size_t(r)].steps) {
          if (s.kind == StepKind::kSend) {
            EXPECT_EQ(s.peer, Mod(r + s.ring_step, p)) << "rank " << r << " step " << s.id;
            // What is sent is the sender's own block (all-gather) or the
            // receiver's block of partials (reduce-scatter): it is never
            // forwarded.
            EXPECT_EQ(s.a.row / mb, op == Op::kAgGemm ? r : s.peer);
            sent_to.insert(s.peer);
          } else if (s.kind == StepKind::kRecv) {
            EXPECT_EQ(s.peer, Mod(r - s.ring_step, p)) << "rank " << r << " step " << s.id;
            heard_from.insert(s.peer);
          }
        }
        for (int q = 0; q < p; ++q) {
          EXPECT_EQ(sent_to.count(q), q == r ? 0U : size_t(chunks)) << "rank " << r << " to " << q;
          EXPECT_EQ(heard_from.count(q), q == r ? 0U : size_t(chunks)) << "rank " << r << " from " << q;
        }
      }
    }
  }
}

// No transfer waits for another: an all-gather's sends wait for nothing,
// a reduce-scatter's only for the GEMM of the partial they carry.
TEST(DirectPlan, NoTransferWaitsForAnArrival) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const int p = 4;
    const Plan plan = MustBuild({op, 32, 8, 16, DType::kBf16, p}, Direct(2, 2));
    for (const RankPlan& rp : plan.ranks) {
      for (const Step& s : rp.steps) {
        if (s.kind != StepKind::kSend) continue;
        if (op == Op::kAgGemm) {
          EXPECT_TRUE(s.deps.empty()) << "step " << s.id;
        } else {
          ASSERT_EQ(s.deps.size(), 1U) << "step " << s.id;
          const Step& g = rp.steps[size_t(s.deps[0])];
          EXPECT_EQ(g.kind, StepKind::kGemm);
          EXPECT_EQ(g.c.row, s.a.row);
        }
      }
    }
  }
}

// gemm_rs computes the rank's own block last: after the last GEMM only its
// add is left, and it is the only add that waits for a GEMM's partial of
// the own block.
TEST(DirectPlan, ReduceScatterLeavesOneAddAfterTheLastGemmWhichIsTheOwnBlock) {
  for (int p = 2; p <= 8; ++p) {
    for (int chunks = 1; chunks <= 3; ++chunks) {
      const int64_t mb = 3 * chunks;
      const Plan plan = MustBuild({Op::kGemmRs, mb * p, 8, 4 * int64_t(p), DType::kBf16, p}, Direct(chunks, 2));
      ASSERT_EQ(plan.tp(), p);
      for (int r = 0; r < p; ++r) {
        const RankPlan& rp = plan.ranks[size_t(r)];
        int last = -1, reduces = 0;
        for (const Step& s : rp.steps) {
          if (s.kind == StepKind::kGemm) last = s.id;
          if (s.kind == StepKind::kReduce) ++reduces;
        }
        ASSERT_GE(last, 0);
        EXPECT_EQ(rp.steps[size_t(last)].a.row / mb, r) << "the last GEMM is the own block";
        ASSERT_EQ(rp.steps.size(), size_t(last) + 2) << "P=" << p << " rank " << r;
        const Step& add = rp.steps.back();
        EXPECT_EQ(add.kind, StepKind::kReduce);
        EXPECT_NE(std::find(add.deps.begin(), add.deps.end(), last), add.deps.end());
        // P−1 partials land and the own one joins them: P−1 adds per sub-chunk.
        EXPECT_EQ(reduces, (p - 1) * chunks);
      }
    }
  }
}

TEST(DirectPlan, EachRankSendsPMinusOneBlocks) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (int p = 1; p <= 8; ++p) {
      const int64_t mb = 6;
      const Workload w{op, mb * p, 8 * int64_t(p), 4 * int64_t(p), DType::kFp32, p};
      const Plan plan = MustBuild(w, Direct(3, 1));
      const int64_t block = mb * (op == Op::kAgGemm ? w.k : w.n) * DTypeBytes(w.dtype);
      for (const RankPlan& rp : plan.ranks) {
        int64_t bytes = 0;
        for (const Step& s : rp.steps) bytes += s.kind == StepKind::kSend ? s.bytes : 0;
        EXPECT_EQ(bytes, int64_t(p - 1) * block) << w.Describe();
      }
    }
  }
}

TEST(DirectPlan, RefusesGemmArSplitsAndBlocksThatDoNotDivide) {
  const Status ar = Direct(1, 1).Validate({Op::kGemmAr, 64, 16, 16, DType::kBf16, 4});
  ASSERT_FALSE(ar.ok());
  EXPECT_TRUE(ar.is_user_error());
  EXPECT_NE(ar.message().find("direct does not apply to gemm_ar"), std::string::npos) << ar.message();
  OverlapConfig split = Direct(2, 1);
  split.splits = {1, 2};
  EXPECT_NE(split.Validate({Op::kGemmRs, 64, 16, 16, DType::kBf16, 4}).message().find("chunked algorithm only"),
            std::string::npos);
  EXPECT_NE(Direct(1, 1)
                .Validate({Op::kAgGemm, 66, 16, 16, DType::kBf16, 4})
                .message()
                .find("not divisible by the TP degree P=4"),
            std::string::npos);
  EXPECT_NE(Direct(5, 1).Validate({Op::kAgGemm, 64, 16, 16, DType::kBf16, 4}).message().find("rows per rank block"),
            std::string::npos);
  Result<Algorithm> parsed = ParseAlgorithm("direct");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, Algorithm::kDirect);
  EXPECT_EQ(AlgorithmName(Algorithm::kDirect), "direct");
  EXPECT_NE(ParseAlgorithm("drect").status().message().find("direct"), std::string::npos);
}

// The rank-block algorithms, which share the M % P rule and the copy engine.
TEST(DirectPlan, RingBidirRingDirectAndTheUlyssesOnesAreThePeerToPeerOnes) {
  const std::pair<Algorithm, bool> expected[] = {
      {Algorithm::kSerial, false},   {Algorithm::kChunked, false},  {Algorithm::kRing, true},
      {Algorithm::kBidirRing, true}, {Algorithm::kIso, false},      {Algorithm::kFused, false},
      {Algorithm::kBulk, false},     {Algorithm::kExternal, false}, {Algorithm::kDirect, true},
      {Algorithm::kA2a, true},       {Algorithm::kA2aDirect, true}};
  for (const auto& [a, peer_to_peer] : expected) EXPECT_EQ(IsPeerToPeer(a), peer_to_peer) << AlgorithmName(a);
}

}  // namespace
}  // namespace direct_plan_test
}  // namespace braid
