// Verification must be able to fail: broken plans and corrupted data give
// large errors, and the reference helpers measure what they claim.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "braid/cpu_backend.h"
#include "braid/cpu_transport.h"
#include "braid/cpu_verify.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::VerifyOnce;

// Removes step `id` from a rank, renumbering later steps and their deps.
void RemoveStep(RankPlan& rp, int id) {
  rp.steps.erase(rp.steps.begin() + id);
  for (Step& s : rp.steps) {
    if (s.id > id) --s.id;
    std::erase(s.deps, id);
    for (int& d : s.deps) {
      if (d > id) --d;
    }
  }
}

int LastReduce(const RankPlan& rp) {
  for (int i = int(rp.steps.size()) - 1; i >= 0; --i) {
    if (rp.steps[size_t(i)].kind == StepKind::kReduce) return i;
  }
  return -1;
}

TEST(CpuVerify, MissingFinalReduceIsCaught) {
  Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing);
  RankPlan& rp = plan.ranks[2];
  const int last = LastReduce(rp);
  ASSERT_GE(last, 0);
  ASSERT_EQ(rp.steps[size_t(last)].c.buffer, rp.output);  // the add that writes the output
  RemoveStep(rp, last);
  Result<RunOutput> out = CpuBackend().Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_FALSE(out->verify.ok);
  EXPECT_EQ(out->verify.worst_rank, 2);
  EXPECT_NEAR(out->verify.max_rel_error, 1.0, 1e-6);  // the output stayed zero
}

TEST(CpuVerify, FinalCopyInsteadOfAddIsCaught) {
  Plan plan = MustBuild(Op::kGemmAr, 16, 8, 8, 2, Algorithm::kRing);
  Step& s = plan.ranks[1].steps[size_t(LastReduce(plan.ranks[1]))];
  s.kind = StepKind::kCopy;  // keeps only this rank's partial
  Result<RunOutput> out = CpuBackend().Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ok);
  EXPECT_GT(out->verify.max_rel_error, 0.05);
}

// Passes everything through but adds 1 to the first float of one message.
class CorruptingTransport : public CpuTransport {
 public:
  explicit CorruptingTransport(int ranks) : CpuTransport(ranks) {}
  Status Send(int src, int dst, uint64_t tag, const float* data, int64_t count) override {
    if (src != 1 || count == 0 || done_) return CpuTransport::Send(src, dst, tag, data, count);
    done_ = true;  // only rank 1's threads get here; one lane sends
    std::vector<float> bad(data, data + count);
    bad[0] += 1.0f;
    return CpuTransport::Send(src, dst, tag, bad.data(), count);
  }
  Status SendInPlace(int src, int dst, uint64_t tag, const float* data, int64_t count, PendingSends&) override {
    return Send(src, dst, tag, data, count);  // in-place sends are corrupted too
  }

 private:
  bool done_ = false;
};

TEST(CpuVerify, CorruptedTransferIsCaught) {
  const Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing);  // comm_lanes 1
  CpuBackend cpu([](int ranks, const CpuBackendOptions&) { return std::make_unique<CorruptingTransport>(ranks); });
  Result<RunOutput> out = cpu.Run(plan, VerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ok);
  EXPECT_EQ(out->verify.worst_rank, 0);  // rank 0 multiplied the corrupted block
  EXPECT_GT(out->verify.max_rel_error, 1e-3);
}

TEST(CpuVerify, WindowRelErrorIsNormwise) {
  HostMatrix ref(2, 3);
  for (int i = 0; i < 6; ++i) ref.data[size_t(i)] = float(i);  // max |ref| = 5
  std::vector<float> out = {3, 4, 0};                          // row 1 of ref but (1,2)
  const RankOutput o{{1, 1, 0, 3}, out.data(), 3};
  EXPECT_DOUBLE_EQ(WindowRelError(ref, o), 5.0 / 5.0);  // |0 − 5| / 5
  out[2] = 5;
  EXPECT_DOUBLE_EQ(WindowRelError(ref, o), 0.0);
  out[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isinf(WindowRelError(ref, o)));
}

TEST(CpuVerify, VerifyOutputsReportsTheWorstRank) {
  HostMatrix ref(2, 2);
  ref.data = {1, 2, 3, 4};
  std::vector<float> good = {1, 2}, bad = {3, 4.5f};
  const VerifyResult v = VerifyOutputs(ref, {{{0, 1, 0, 2}, good.data(), 2}, {{1, 1, 0, 2}, bad.data(), 2}});
  EXPECT_TRUE(v.ran);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.worst_rank, 1);
  EXPECT_DOUBLE_EQ(v.max_rel_error, 0.5 / 4.0);
}

TEST(CpuVerify, ReferenceGemmMultiplies) {
  HostMatrix a(2, 3), b(3, 2);
  a.data = {1, 2, 3, 4, 5, 6};
  b.data = {7, 8, 9, 10, 11, 12};
  const HostMatrix c = ReferenceGemm(a, b);
  EXPECT_EQ(c.data, (std::vector<float>{58, 64, 139, 154}));
}

TEST(CpuVerify, RandomMatrixIsDeterministicAndInRange) {
  const HostMatrix a = RandomMatrix(7, 9, 42, 0), b = RandomMatrix(7, 9, 42, 0);
  const HostMatrix c = RandomMatrix(7, 9, 43, 0), d = RandomMatrix(7, 9, 42, 1);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, c.data);
  EXPECT_NE(a.data, d.data);
  for (float v : a.data) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
}

}  // namespace
}  // namespace braid
