// A failing step ends the run with an error instead of a hang, wherever the
// other threads are waiting (deps, receives, paced sends, the barrier).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>

#include "braid/cpu_backend.h"
#include "braid/cpu_transport.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::WithWatchdog;

// Delegates to CpuTransport; the n-th send (counted over all ranks, in
// place or not) goes out one float short or throws.
class FaultyTransport : public CpuTransport {
 public:
  enum class Fault { kShortMessage, kThrow };
  FaultyTransport(int ranks, const CpuBackendOptions& o, int nth, Fault fault)
      : CpuTransport(ranks, o.link_gbps, o.link_latency_us), nth_(nth), fault_(fault) {}

  Status Send(int src, int dst, uint64_t tag, const float* data, int64_t count) override {
    if (sends_.fetch_add(1) != nth_ || count == 0) return CpuTransport::Send(src, dst, tag, data, count);
    if (fault_ == Fault::kThrow) throw std::runtime_error("injected transport fault");
    return CpuTransport::Send(src, dst, tag, data, count - 1);
  }
  Status SendInPlace(int src, int dst, uint64_t tag, const float* data, int64_t count, PendingSends&) override {
    return Send(src, dst, tag, data, count);
  }

 private:
  std::atomic<int> sends_{0};
  int nth_;
  Fault fault_;
};

Status RunWithFault(const Plan& plan, RunOptions o, int nth, FaultyTransport::Fault fault,
                    CpuBackendOptions cpu_options = {}) {
  CpuBackend cpu(cpu_options, [&](int ranks, const CpuBackendOptions& opts) {
    return std::make_unique<FaultyTransport>(ranks, opts, nth, fault);
  });
  Result<RunOutput> out = cpu.Run(plan, o);
  return out.status();
}

TEST(CpuAbort, WrongSizeMessageFailsTheRunWithoutHanging) {
  WithWatchdog(std::chrono::seconds(60), [] {
    RunOptions o;
    o.warmup = 1;
    o.iters = 3;
    const Plan plan = MustBuild(Op::kGemmRs, 32, 8, 8, 4, Algorithm::kRing, 2, 2);
    // Sends per iteration: 4 ranks × 3 steps × 2 sub-chunks = 24; fail in the second.
    for (int nth : {0, 30, 95}) {
      const Status s = RunWithFault(plan, o, nth, FaultyTransport::Fault::kShortMessage);
      ASSERT_FALSE(s.ok()) << "fault at send " << nth;
      EXPECT_EQ(s.code(), StatusCode::kInternal);
      EXPECT_NE(s.message().find("the message has"), std::string::npos) << s.message();
    }
  });
}

TEST(CpuAbort, ThrowingTransportFailsCollectivesWithoutHanging) {
  WithWatchdog(std::chrono::seconds(60), [] {
    RunOptions o;
    o.warmup = 0;
    o.iters = 2;
    const Plan plan = MustBuild(Op::kGemmAr, 32, 8, 8, 8, Algorithm::kChunked, 4, 2);
    const Status s = RunWithFault(plan, o, 20, FaultyTransport::Fault::kThrow);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("injected transport fault"), std::string::npos) << s.message();
  });
}

TEST(CpuAbort, PacedSendersAreWokenToo) {
  WithWatchdog(std::chrono::seconds(60), [] {
    RunOptions o;
    o.warmup = 0;
    o.iters = 1;
    CpuBackendOptions paced;
    paced.link_gbps = 1e-5;  // each 4 KiB send holds its sender for 3.3 s unless woken
    const Plan plan = MustBuild(Op::kAgGemm, 64, 8, 64, 4, Algorithm::kRing, 1, 2);
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = RunWithFault(plan, o, 2, FaultyTransport::Fault::kShortMessage, paced);
    EXPECT_FALSE(s.ok());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  });
}

TEST(CpuAbort, BrokenPlansAreRejectedBeforeRunning) {
  const Plan good = MustBuild(Op::kGemmRs, 16, 8, 8, 2, Algorithm::kRing);
  CpuBackend cpu;
  RunOptions o = testing::VerifyOnce();
  auto expect_invalid = [&](const Plan& p, const char* what) {
    Result<RunOutput> out = cpu.Run(p, o);
    ASSERT_FALSE(out.ok()) << what;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << what;
    EXPECT_NE(out.status().message().find(what), std::string::npos) << out.status().message();
  };
  Plan p = good;
  p.ranks[1].steps.back().deps.push_back(int(p.ranks[1].steps.size()));
  expect_invalid(p, "does not name an earlier step");
  p = good;
  p.ranks[0].steps[0].c.rows += 100;
  expect_invalid(p, "lies outside the buffer");
  p = good;
  for (Step& s : p.ranks[0].steps) {
    if (s.kind == StepKind::kRecv) s.match += 1000;
  }
  expect_invalid(p, "no matching recv");
  p = good;
  p.ranks[1].steps[0].lane = 7;
  expect_invalid(p, "lane 7 does not exist");
}

TEST(CpuAbort, TooMuchMemoryIsRefusedUpFront) {
  const Plan plan = MustBuild(Op::kGemmRs, 1 << 20, 1 << 20, 1 << 20, 1, Algorithm::kSerial);
  Result<RunOutput> out = CpuBackend().Run(plan, testing::VerifyOnce());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("GiB"), std::string::npos) << out.status().message();
}

TEST(CpuAbort, FusedPlansAreRefusedUpFront) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const Plan plan = MustBuild(op, 16, 8, 8, 2, Algorithm::kFused);
    Result<RunOutput> out = CpuBackend().Run(plan, testing::VerifyOnce());
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(), "fused runs on the sim backend; the cpu backend has no fused kernel");
  }
}

TEST(CpuAbort, BadOptionsAreRejected) {
  const Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 2, Algorithm::kRing);
  RunOptions o;
  o.iters = -1;
  EXPECT_EQ(CpuBackend().Run(plan, o).status().code(), StatusCode::kInvalidArgument);
  CpuBackendOptions negative;
  negative.link_gbps = -1;
  EXPECT_EQ(CpuBackend(negative).Run(plan, RunOptions()).status().code(), StatusCode::kInvalidArgument);
  CpuBackendOptions latency_alone;
  latency_alone.link_latency_us = 5;
  EXPECT_EQ(CheckCpuBackendOptions(latency_alone).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace braid
