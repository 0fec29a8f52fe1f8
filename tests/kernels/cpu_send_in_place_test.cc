// Which send steps go out in place (no copy, settled at the iteration's end):
// exactly those whose rows no later step of the rank writes.
#include <gtest/gtest.h>

#include <vector>

#include "braid/cpu_transport.h"
#include "braid/host_matrix.h"
#include "cpu_test_util.h"
#include "rank_memory.h"
#include "run_plan.h"
#include "send_in_place.h"

namespace braid {
namespace cpu_send_in_place_test {
namespace {

using testing::MustBuild;

struct SendCount {
  int sends = 0, in_place = 0;
};

SendCount Count(const Plan& plan) {
  SendCount c;
  for (const RankPlan& rp : plan.ranks) {
    const std::vector<bool> in_place = cpu::SendsInPlace(rp);
    EXPECT_EQ(in_place.size(), rp.steps.size());
    for (const Step& s : rp.steps) {
      if (s.kind != StepKind::kSend) {
        EXPECT_FALSE(in_place[size_t(s.id)]) << "step " << s.id << " is not a send";
        continue;
      }
      ++c.sends;
      c.in_place += in_place[size_t(s.id)] ? 1 : 0;
    }
  }
  return c;
}

TEST(CpuSendInPlace, RingPlansSendEveryBlockInPlace) {
  // Their sends read rows that nothing rewrites until the next iteration.
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    for (Algorithm algo : {Algorithm::kRing, Algorithm::kBidirRing}) {
      for (int chunks : {1, 4}) {
        const Plan plan = MustBuild(op, 96, 12, 12, 3, algo, chunks);
        const SendCount c = Count(plan);
        EXPECT_GT(c.sends, 0);
        EXPECT_EQ(c.in_place, c.sends) << OpName(op) << " " << AlgorithmName(algo) << " chunks " << chunks;
      }
    }
  }
}

constexpr int64_t kCols = 4;

Step Transfer(StepKind kind, int id, int peer, int64_t match, Region r) {
  Step s;
  s.id = id;
  s.kind = kind;
  s.peer = peer;
  s.match = match;
  (kind == StepKind::kSend ? s.a : s.c) = r;
  s.name = kind == StepKind::kSend ? "send" : "recv";
  return s;
}

// Rank 0 sends rows X (match 1), overwrites X with Y, sends X again
// (match 2). Rank 1 receives match 2 first, so it takes match 1 only after
// the overwrite: a first send that read X in place would deliver Y.
Plan OverwriteAfterSendPlan() {
  Plan plan;
  plan.lanes = {Lane{"comm", LaneKind::kComm, 0}};
  plan.ranks.resize(2);
  RankPlan& r0 = plan.ranks[0];
  for (int64_t row0 : {0, 2}) {
    BufferDecl d{row0 == 0 ? "x" : "y", 2, kCols, BufferRole::kInput, {}, 0};
    d.input = InputWindow{Matrix::kA, row0, 2, 0, kCols, 0};
    r0.buffers.push_back(d);
  }
  const Region x = Region::Rows(0, 0, 2), y = Region::Rows(1, 0, 2);
  r0.steps.push_back(Transfer(StepKind::kSend, 0, 1, 1, x));
  Step copy;
  copy.id = 1;
  copy.kind = StepKind::kCopy;
  copy.a = y;
  copy.c = x;
  copy.deps = {0};
  copy.name = "copy";
  r0.steps.push_back(copy);
  r0.steps.push_back(Transfer(StepKind::kSend, 2, 1, 2, x));
  RankPlan& r1 = plan.ranks[1];
  r1.buffers = {BufferDecl{"first", 2, kCols, BufferRole::kWorkspace, {}, 0},
                BufferDecl{"second", 2, kCols, BufferRole::kWorkspace, {}, 0}};
  r1.steps.push_back(Transfer(StepKind::kRecv, 0, 0, 2, Region::Rows(1, 0, 2)));
  r1.steps.push_back(Transfer(StepKind::kRecv, 1, 0, 1, Region::Rows(0, 0, 2)));
  return plan;
}

TEST(CpuSendInPlace, ASendWhoseRowsAreRewrittenLaterCopies) {
  const Plan plan = OverwriteAfterSendPlan();
  const std::vector<bool> in_place = cpu::SendsInPlace(plan.ranks[0]);
  EXPECT_EQ(in_place, (std::vector<bool>{false, false, true}));
  // A write to other rows, or to another buffer, does not stop it.
  Plan other = plan;
  other.ranks[0].steps[1].c = Region::Rows(1, 0, 2);
  other.ranks[0].steps[1].a = Region::Rows(0, 0, 2);
  EXPECT_EQ(cpu::SendsInPlace(other.ranks[0]), (std::vector<bool>{true, false, true}));
  // One overlapping row of a strided region is enough.
  Plan strided = plan;
  strided.ranks[0].buffers[0].rows = 6;
  strided.ranks[0].steps[0].a = Region{0, 0, 1, 2, 3};  // rows 0 and 3
  strided.ranks[0].steps[1].c = Region::Rows(0, 3, 2);  // rows 3, 4
  strided.ranks[0].steps[1].a = Region::Rows(1, 0, 2);
  strided.ranks[0].steps[2].a = Region::Rows(0, 1, 2);  // rows 1, 2: written by nobody later
  EXPECT_EQ(cpu::SendsInPlace(strided.ranks[0]), (std::vector<bool>{false, false, true}));
}

TEST(CpuSendInPlace, EachMessageHoldsTheRowsAsTheyWereWhenSent) {
  testing::WithWatchdog(std::chrono::seconds(60), [] {
    const Plan plan = OverwriteAfterSendPlan();
    std::vector<HostMatrix> a{HostMatrix(4, kCols)}, b{HostMatrix(1, 1)};
    for (size_t i = 0; i < a[0].data.size(); ++i) a[0].data[i] = float(i + 1);
    std::vector<cpu::RankMemory> memory;
    for (const RankPlan& rp : plan.ranks) memory.emplace_back(rp, a, b);
    CpuTransport transport(2);
    RunOptions o;
    o.warmup = 0;
    o.iters = 1;
    o.trace = false;
    RunOutput out;
    ASSERT_TRUE(cpu::ExecutePlan(plan, o, memory, transport, out).ok());
    for (int64_t i = 0; i < 2 * kCols; ++i) {
      EXPECT_EQ(memory[1].data(0)[i], a[0].data[size_t(i)]) << "the first message must carry X, row " << i / kCols;
      EXPECT_EQ(memory[1].data(1)[i], a[0].data[size_t(2 * kCols + i)]) << "the second carries Y, row " << i / kCols;
    }
  });
}

}  // namespace
}  // namespace cpu_send_in_place_test
}  // namespace braid
