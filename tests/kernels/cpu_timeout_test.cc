// No unbounded wait with ranks as threads: a transport that loses a message
// or never settles a send hangs the run forever, so only the backend's
// timeout ends it, with one message naming what every stuck thread waits for.
// The test returning at all (under ThreadSanitizer in CI) shows that every
// thread, the watchdog's included, has joined.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "braid/cpu_backend.h"
#include "braid/cpu_transport.h"
#include "cpu_collectives.h"
#include "cpu_test_util.h"
#include "run_control.h"
#include "run_watchdog.h"
#include "send_in_place.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::WithWatchdog;
using Clock = std::chrono::steady_clock;

constexpr double kTimeoutS = 0.4;

// Drops the nth message (0-based) sent from src to dst under tag, copied or
// in place: its receiver waits for it forever.
class LosingTransport : public CpuTransport {
 public:
  // `lost` counts the messages dropped; it outlives the run's transport.
  LosingTransport(int ranks, int src, int dst, uint64_t tag, int nth, std::atomic<int>* lost)
      : CpuTransport(ranks), src_(src), dst_(dst), tag_(tag), nth_(nth), lost_(lost) {}

  Status Send(int src, int dst, uint64_t tag, const float* data, int64_t count) override {
    if (Loses(src, dst, tag)) return Status::Ok();
    return CpuTransport::Send(src, dst, tag, data, count);
  }
  Status SendInPlace(int src, int dst, uint64_t tag, const float* data, int64_t count, PendingSends& pending) override {
    if (Loses(src, dst, tag)) return Status::Ok();
    return CpuTransport::SendInPlace(src, dst, tag, data, count, pending);
  }

 private:
  bool Loses(int src, int dst, uint64_t tag) {
    if (src != src_ || dst != dst_ || tag != tag_) return false;
    if (seen_.fetch_add(1) != nth_) return false;
    lost_->fetch_add(1);
    return true;
  }
  int src_, dst_;
  uint64_t tag_;
  int nth_;
  std::atomic<int>* lost_;
  std::atomic<int> seen_{0};
};

// Delivers every message but never reports an in-place send as settled,
// until the run is aborted.
class UnsettledTransport : public CpuTransport {
 public:
  explicit UnsettledTransport(int ranks) : CpuTransport(ranks) {}

  Status Settle(PendingSends& pending) override {
    if (!pending.tickets.empty()) {
      std::unique_lock<std::mutex> lock(mu_);
      aborted_cv_.wait(lock, [&] { return aborted_; });
    }
    return CpuTransport::Settle(pending);
  }
  void Abort() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      aborted_ = true;
    }
    aborted_cv_.notify_all();
    CpuTransport::Abort();
  }

 private:
  std::mutex mu_;
  std::condition_variable aborted_cv_;
  bool aborted_ = false;
};

struct Outcome {
  Status status;
  double seconds = 0;
};

Outcome RunTimed(const Plan& plan, const RunOptions& o, CpuBackend::TransportFactory factory,
                 double timeout_s = kTimeoutS) {
  CpuBackendOptions opts;
  opts.timeout_s = timeout_s;
  CpuBackend cpu(opts, std::move(factory));
  const auto t0 = Clock::now();
  Result<RunOutput> out = cpu.Run(plan, o);
  return {out.status(), std::chrono::duration<double>(Clock::now() - t0).count()};
}

// The first step of `rank` of this kind that `pick` accepts.
template <typename Pick>
const Step& FindStep(const Plan& plan, int rank, StepKind kind, Pick pick) {
  for (const Step& s : plan.ranks[size_t(rank)].steps) {
    if (s.kind == kind && pick(s)) return s;
  }
  ADD_FAILURE() << "no such step on rank " << rank;
  return plan.ranks[size_t(rank)].steps.front();
}

std::string Who(const Plan& plan, int rank, int lane) {
  return "rank " + std::to_string(rank) + " lane " + std::to_string(lane) + " (" + plan.lanes[size_t(lane)].name + ")";
}

std::string Quoted(const Step& s) { return "step " + std::to_string(s.id) + " '" + s.name + "'"; }

void ExpectTimedOut(const Outcome& out) {
  EXPECT_EQ(out.status.code(), StatusCode::kInternal);
  EXPECT_EQ(out.status.message().rfind("cpu: timed out after 0.4 s (`timeout_s`) ", 0), 0u) << out.status.message();
  EXPECT_EQ(out.status.message().find('\n'), std::string::npos) << "one line";
  // The fault hangs forever: only the bound can have ended the run.
  EXPECT_GE(out.seconds, kTimeoutS);
}

TEST(CpuTimeout, LostRecvNamesTheRankLaneStepAndSender) {
  WithWatchdog(std::chrono::seconds(60), [] {
    const Plan plan = MustBuild(Op::kAgGemm, 64, 8, 16, 4, Algorithm::kRing);
    const Step& recv = FindStep(plan, 2, StepKind::kRecv, [](const Step& s) { return s.peer == 1; });
    RunOptions o;
    o.warmup = 1;
    o.iters = 3;
    // The third copy of that message: iterations 0 and 1 complete, 2 hangs.
    std::atomic<int> lost{0};
    const Outcome out = RunTimed(plan, o, [&](int ranks, const CpuBackendOptions&) {
      return std::make_unique<LosingTransport>(ranks, 1, 2, uint64_t(recv.match), 2, &lost);
    });
    ASSERT_FALSE(out.status.ok());
    ExpectTimedOut(out);
    const std::string& msg = out.status.message();
    EXPECT_NE(msg.find("in iteration 2 (timed 2 of 3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(Who(plan, 2, recv.lane) + " waits in " + Quoted(recv) + " (recv from rank 1, match " +
                       std::to_string(recv.match) + ")"),
              std::string::npos)
        << msg;
    // The GEMM on the received block waits for the recv.
    const Step& gemm = FindStep(plan, 2, StepKind::kGemm, [&](const Step& s) {
      for (int d : s.deps) {
        if (d == recv.id) return true;
      }
      return false;
    });
    EXPECT_NE(msg.find(Who(plan, 2, gemm.lane) + " waits for " + Quoted(recv)), std::string::npos) << msg;
    EXPECT_EQ(lost.load(), 1);
  });
}

TEST(CpuTimeout, LostRingMessageNamesTheCollective) {
  WithWatchdog(std::chrono::seconds(60), [] {
    const Plan plan = MustBuild(Op::kGemmAr, 32, 8, 8, 2, Algorithm::kChunked, 2);
    const Step& coll = FindStep(plan, 1, StepKind::kCollective, [](const Step&) { return true; });
    RunOptions o;
    o.warmup = 0;
    o.iters = 2;
    std::atomic<int> lost{0};
    const Outcome out = RunTimed(plan, o, [&](int ranks, const CpuBackendOptions&) {
      return std::make_unique<LosingTransport>(ranks, 0, 1, CollectiveTag(coll.match, 0), 0, &lost);
    });
    EXPECT_EQ(lost.load(), 1);
    ASSERT_FALSE(out.status.ok());
    ExpectTimedOut(out);
    const std::string& msg = out.status.message();
    EXPECT_NE(msg.find("in iteration 0 (timed 1 of 2)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(Who(plan, 1, coll.lane) + " waits in " + Quoted(coll) + " (collective " +
                       std::string(CollectiveName(coll.collective)) + " over the ring, match " +
                       std::to_string(coll.match) + ")"),
              std::string::npos)
        << msg;
  });
}

TEST(CpuTimeout, UnsettledInPlaceSendNamesTheStepThatSentIt) {
  WithWatchdog(std::chrono::seconds(60), [] {
    const Plan plan = MustBuild(Op::kAgGemm, 48, 12, 16, 3, Algorithm::kRing, 2);
    RunOptions o;
    o.warmup = 0;
    o.iters = 1;
    const Outcome out = RunTimed(
        plan, o, [](int ranks, const CpuBackendOptions&) { return std::make_unique<UnsettledTransport>(ranks); });
    ASSERT_FALSE(out.status.ok());
    ExpectTimedOut(out);
    const std::string& msg = out.status.message();
    // Every rank's lane with in-place sends settles its first one forever.
    for (int r = 0; r < plan.tp(); ++r) {
      const std::vector<bool> in_place = cpu::SendsInPlace(plan.ranks[size_t(r)]);
      const Step& first = FindStep(plan, r, StepKind::kSend, [&](const Step& s) { return in_place[size_t(s.id)]; });
      int n = 0;
      for (const Step& s : plan.ranks[size_t(r)].steps) n += s.lane == first.lane && in_place[size_t(s.id)] ? 1 : 0;
      EXPECT_NE(msg.find(Who(plan, r, first.lane) + " settles in-place send 1 of " + std::to_string(n) +
                         " (not yet received): " + Quoted(first) + " (send to rank " + std::to_string(first.peer) +
                         ", match " + std::to_string(first.match) + ")"),
                std::string::npos)
          << msg;
    }
    // The compute lanes finished their steps and wait for the comm lanes.
    EXPECT_NE(msg.find("at the iteration barrier: "), std::string::npos) << msg;
  });
}

TEST(CpuTimeout, HealthyRunsPassAndEndWithoutWaitingForTheDeadline) {
  // Day-long and longer bounds: the run returning in the test's minute shows
  // that the watchdog is woken when the run ends instead of sleeping to its deadline.
  WithWatchdog(std::chrono::seconds(60), [] {
    RunOptions o = testing::VerifyOnce();
    o.iters = 5;
    for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing}) {
      const Plan plan = MustBuild(Op::kGemmRs, 64, 16, 16, 4, algo, algo == Algorithm::kSerial ? 1 : 2);
      // 1e300 s: beyond the clock's range, so clamped, not overflowed into the past.
      for (double bound : {86400.0, 1e300}) {
        const Outcome out = RunTimed(plan, o, nullptr, bound);
        EXPECT_TRUE(out.status.ok()) << out.status.message();
      }
    }
  });
}

TEST(CpuTimeout, BoundsEachIterationNotTheRun) {
  WithWatchdog(std::chrono::seconds(60), [] {
    // Paced messages hold every iteration at least 20 ms, so 60 of them take
    // over a second: twice the bound, which each iteration stays far below.
    CpuBackendOptions opts;
    opts.link_gbps = 100;
    opts.link_latency_us = 20000;
    opts.timeout_s = 0.6;
    const Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing);
    RunOptions o;
    o.warmup = 0;
    o.iters = 60;
    const auto t0 = Clock::now();
    Result<RunOutput> out = CpuBackend(opts).Run(plan, o);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_GT(Clock::now() - t0, std::chrono::duration<double>(2 * opts.timeout_s));
  });
}

TEST(CpuTimeout, TimeoutMustBeFiniteAndPositive) {
  const Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 2, Algorithm::kRing);
  for (double t : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    CpuBackendOptions opts;
    opts.timeout_s = t;
    const Status s = CheckCpuBackendOptions(opts);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << t;
    EXPECT_EQ(s.message(), "the cpu backend's timeout must be a finite number of seconds above 0");
    EXPECT_EQ(CpuBackend(opts).Run(plan, RunOptions()).status().code(), StatusCode::kInvalidArgument) << t;
  }
  EXPECT_EQ(CpuBackendOptions{}.timeout_s, 300) << "the MPI transport's default";
}

TEST(CpuWatchdog, FailsTheRunOnceTheDeadlinePasses) {
  WithWatchdog(std::chrono::seconds(60), [] {
    cpu::RunControl control(1, nullptr);
    cpu::RunWatchdog dog(0.05, &control, [] { return std::string("stuck here"); });
    ASSERT_TRUE(dog.Start().ok());
    // Step 0 never finishes: only the watchdog's Fail can end this wait.
    EXPECT_FALSE(control.WaitDone(0, 0));
    EXPECT_TRUE(dog.Stop());
    EXPECT_EQ(control.error(), "stuck here");
  });
}

TEST(CpuWatchdog, StopEndsItAtOnceAndRearmPostponesIt) {
  WithWatchdog(std::chrono::seconds(60), [] {
    cpu::RunControl control(1, nullptr);
    cpu::RunWatchdog dog(86400, &control, [] { return std::string("fired"); });
    ASSERT_TRUE(dog.Start().ok());
    dog.Rearm();
    EXPECT_FALSE(dog.Stop());
    EXPECT_FALSE(control.aborted());
    EXPECT_FALSE(dog.Stop()) << "idempotent";
  });
}

}  // namespace
}  // namespace braid
