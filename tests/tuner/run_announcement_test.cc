// What rank 0 of a tuning job under mpirun announces before each run: the
// followers must rebuild exactly the plan rank 0 runs, or refuse.
#include "run_announcement.h"

#include <gtest/gtest.h>

#include "braid/plan_filter.h"
#include "braid/planner.h"

namespace braid::tuning {
namespace {

Workload SmallRs() { return Workload{Op::kGemmRs, 96, 32, 96, DType::kBf16, 3}; }

OverlapConfig Ring(int chunks) {
  OverlapConfig c;
  c.algorithm = Algorithm::kRing;
  c.chunks = chunks;
  c.comm_lanes = 2;
  return c;
}

TEST(RunAnnouncement, RoundTripsEveryField) {
  RunAnnouncement a;
  a.workload = SmallRs();
  a.config = Ring(2);
  a.part = PlanPart::kCommAlone;
  a.fingerprint = 0xfedcba9876543210ull;
  a.options.warmup = 3;
  a.options.iters = 7;
  a.options.verify = true;
  a.options.trace = false;
  a.options.seed = 123456789012345ull;
  Result<RunAnnouncement> b = DecodeAnnouncement(EncodeAnnouncement(a));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_FALSE(b->finished);
  EXPECT_EQ(b->workload.Describe(), a.workload.Describe());
  EXPECT_EQ(b->config.Describe(), a.config.Describe());
  EXPECT_EQ(b->part, PlanPart::kCommAlone);
  EXPECT_EQ(b->fingerprint, a.fingerprint);
  EXPECT_EQ(b->options.warmup, 3);
  EXPECT_EQ(b->options.iters, 7);
  EXPECT_TRUE(b->options.verify);
  EXPECT_FALSE(b->options.trace);
  EXPECT_EQ(b->options.seed, 123456789012345ull);
}

TEST(RunAnnouncement, FinishedCarriesTheExitCode) {
  RunAnnouncement a;
  a.finished = true;
  a.exit_code = 2;
  Result<RunAnnouncement> b = DecodeAnnouncement(EncodeAnnouncement(a));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->finished);
  EXPECT_EQ(b->exit_code, 2);
}

TEST(RunAnnouncement, DamagedBlobsAreRefused) {
  RunAnnouncement a;
  a.workload = SmallRs();
  a.config = Ring(1);
  Blob good = EncodeAnnouncement(a);
  for (const Blob& bad : {Blob{}, Blob(good.begin(), good.begin() + long(good.size() / 2)), Blob{'[', ']'},
                          Blob{'{', '"', 'f', 'i', 'n', 'i', 's', 'h', 'e', 'd', '"', ':', '1', '}'}}) {
    Result<RunAnnouncement> b = DecodeAnnouncement(bad);
    EXPECT_FALSE(b.ok());
  }
  std::string text(good.begin(), good.end());
  text.replace(text.find("gemm_rs"), 7, "gemm_xx");
  EXPECT_FALSE(DecodeAnnouncement(Blob(text.begin(), text.end())).ok()) << "an unknown op";
}

TEST(RunAnnouncement, PartOfFindsEachPartAndTheFollowerRebuildsIt) {
  Result<Plan> whole = BuildPlan(SmallRs(), Ring(2));
  ASSERT_TRUE(whole.ok());
  const Plan& all = *whole;
  const Plan compute = FilterPlan(*whole, [](const Step& s) { return !IsCommStep(s); });
  const Plan comm = FilterPlan(*whole, IsCommStep);
  for (auto [plan, part] : {std::pair{&all, PlanPart::kWhole}, std::pair{&compute, PlanPart::kComputeAlone},
                            std::pair{&comm, PlanPart::kCommAlone}}) {
    Result<PlanPart> found = PartOf(*plan);
    ASSERT_TRUE(found.ok()) << found.status().message();
    EXPECT_EQ(*found, part);
    Result<Plan> rebuilt = RebuildPlan(plan->workload, plan->config, part);
    ASSERT_TRUE(rebuilt.ok());
    EXPECT_EQ(PlanFingerprint(*rebuilt), PlanFingerprint(*plan));
  }
  EXPECT_NE(PlanFingerprint(*whole), PlanFingerprint(compute));
  EXPECT_NE(PlanFingerprint(compute), PlanFingerprint(comm));
}

TEST(RunAnnouncement, AHandMadePlanIsRefusedNotRunDifferently) {
  Result<Plan> plan = BuildPlan(SmallRs(), Ring(2));
  ASSERT_TRUE(plan.ok());
  const uint64_t before = PlanFingerprint(*plan);
  plan->ranks[1].steps.back().bytes += 4;  // one step moves other bytes
  EXPECT_NE(PlanFingerprint(*plan), before);
  Result<PlanPart> part = PartOf(*plan);
  ASSERT_FALSE(part.ok());
  EXPECT_NE(part.status().message().find("cannot rebuild"), std::string::npos) << part.status().message();
}

}  // namespace
}  // namespace braid::tuning
