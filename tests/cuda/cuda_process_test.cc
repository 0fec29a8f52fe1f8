// The cuda backend as one process per GPU (the mpirun path), driven through
// the fakes (fake_processes.h). --comm-engine ce across processes:
// cuda_ce_process_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "braid/launcher_bootstrap.h"
#include "braid/layer_workload.h"
#include "cuda_test_util.h"
#include "fake_processes.h"
#include "thread_launcher.h"

namespace braid {
namespace {

using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;

using testing::ProcessRun;

ProcessRun RunAsProcesses(const Plan& plan, const RunOptions& run, int world, CudaBackendOptions options = {},
                          cuda::FakeGpuConfig config = {}, int ranks_per_host = 0,
                          std::vector<ClockOffset> offsets = {}) {
  return testing::RunAsFakeProcesses(plan, run, world, std::move(options), std::move(config), ranks_per_host,
                                     std::move(offsets));
}

RunOptions Traced(int iters) {
  RunOptions o = CudaVerifyOnce();
  o.warmup = 1;
  o.iters = iters;
  return o;
}

TEST(CudaProcess, EveryAlgorithmVerifiesAcrossProcesses) {
  int runs = 0;
  for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (int p : {2, 4}) {
        const Plan plan = CudaPlan(op, 64, 32, 64, p, algo, algo == Algorithm::kSerial ? 1 : 2);
        SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
        ProcessRun pr = RunAsProcesses(plan, Traced(2), p);
        for (int r = 0; r < p; ++r) {
          ASSERT_TRUE(pr.outs[size_t(r)].ok()) << "rank " << r << ": " << pr.outs[size_t(r)].status().message();
          const RunOutput& out = *pr.outs[size_t(r)];
          EXPECT_TRUE(out.verify.ran);
          EXPECT_TRUE(out.verify.ok) << "rank " << r << " error " << out.verify.max_rel_error;
          EXPECT_EQ(out.iteration_ns.size(), 2u);  // rank 0's times, broadcast
          // Only rank 0 holds the events: every rank's steps, every timed iteration.
          EXPECT_EQ(out.events.size(), r == 0 ? plan.total_steps() * 2 : 0u);
        }
        std::set<int> ranks;
        for (const Event& e : pr.outs[0]->events) ranks.insert(e.rank);
        EXPECT_EQ(int(ranks.size()), p);
        EXPECT_EQ(pr.stats.comms, p);  // one communicator per process, from the broadcast id
        EXPECT_EQ(pr.stats.live_allocations, 0);
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 16);
}

TEST(CudaProcess, LayerPlanWithComputeStepsVerifies) {
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kRing;
  cfg.chunks = 2;
  auto plan = testing::TinyLayerPlan(16, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ProcessRun pr = RunAsProcesses(*plan, Traced(1), 2);
  for (const auto& out : pr.outs) {
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
  }
  EXPECT_EQ(pr.outs[0]->events.size(), plan->total_steps());
}

TEST(CudaProcess, WrongNumbersOnOneRankFailTheVerdictOnEveryRank) {
  cuda::FakeGpuConfig bad;
  bad.corrupt_matmul_in = "rank 1 ";
  const Plan plan = CudaPlan(Op::kAgGemm, 64, 32, 64, 2, Algorithm::kRing, 1);
  ProcessRun pr = RunAsProcesses(plan, CudaVerifyOnce(), 2, {}, bad);
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(pr.outs[size_t(r)].ok()) << pr.outs[size_t(r)].status().message();
    EXPECT_FALSE(pr.outs[size_t(r)]->verify.ok);
    EXPECT_EQ(pr.outs[size_t(r)]->verify.worst_rank, 1);
  }
}

TEST(CudaProcess, EventsAreAlignedByTheLauncherClockOffsets) {
  const Plan plan = CudaPlan(Op::kGemmRs, 48, 32, 48, 3, Algorithm::kRing, 1);
  // Rank r's clock runs r × 10 s ahead of rank 0's; the fake's own times are small.
  std::vector<ClockOffset> offsets;
  for (int r = 0; r < 3; ++r) offsets.push_back({int64_t(r) * 10'000'000'000, 1000});
  ProcessRun pr = RunAsProcesses(plan, Traced(1), 3, {}, {}, 0, offsets);
  ASSERT_TRUE(pr.outs[0].ok()) << pr.outs[0].status().message();
  ASSERT_EQ(pr.outs[0]->events.size(), plan.total_steps());
  for (const Event& e : pr.outs[0]->events) {
    const int64_t expected = -int64_t(e.rank) * 10'000'000'000;
    EXPECT_GE(e.start_ns, expected) << e.name;
    EXPECT_LT(e.end_ns, expected + 1'000'000'000) << e.name;
    EXPECT_LE(e.start_ns, e.end_ns);
  }
  bool noted = false;
  for (const std::string& n : pr.outs[0]->notes)
    noted = noted || n.find("largest offset 20000000000 ns") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(CudaProcess, TpOtherThanTheWorldIsBadInputOnEveryRank) {
  const Plan plan = CudaPlan(Op::kAgGemm, 64, 32, 64, 4, Algorithm::kRing);
  ProcessRun pr = RunAsProcesses(plan, CudaVerifyOnce(), 2);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("`tp` 4 must equal the number of MPI processes (2)"));
  }
  EXPECT_EQ(pr.stats.comms, 0);
}

TEST(CudaProcess, FewerGpusThanLocalRanksIsBadInputOnEveryRank) {
  cuda::FakeGpuConfig two;
  two.devices = 2;
  const Plan plan = CudaPlan(Op::kAgGemm, 64, 32, 64, 4, Algorithm::kRing);
  // Four processes on one host with two GPUs: local ranks 2 and 3 have none.
  ProcessRun pr = RunAsProcesses(plan, CudaVerifyOnce(), 4, {}, two);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("rank 2: this host has 2 GPUs but at least 3 MPI processes"));
  }
  // Two hosts of one process each: local rank 0 on both (the fake world is one
  // machine, so both "hosts"
  // share its device 0; untraced, since one fake device has one tracer).
  RunOptions untraced = CudaVerifyOnce();
  untraced.trace = false;
  ProcessRun ok = RunAsProcesses(CudaPlan(Op::kAgGemm, 64, 32, 64, 2, Algorithm::kRing), untraced, 2, {}, two, 1);
  for (const auto& out : ok.outs) EXPECT_TRUE(out.ok()) << out.status().message();
}

TEST(CudaProcess, NoDeviceIsUnavailableOnEveryRank) {
  cuda::FakeGpuConfig none;
  none.devices = 0;
  ProcessRun pr = RunAsProcesses(CudaPlan(Op::kAgGemm, 64, 32, 64, 2, Algorithm::kRing), CudaVerifyOnce(), 2, {}, none);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kUnavailable);
    EXPECT_THAT(out.status().message(), HasSubstr("no CUDA device"));
  }
}

TEST(CudaProcess, LoopbackAndFusedAreRefusedAcrossProcesses) {
  CudaBackendOptions loop;
  loop.loopback = true;
  ProcessRun pr = RunAsProcesses(CudaPlan(Op::kAgGemm, 64, 32, 64, 2, Algorithm::kRing), CudaVerifyOnce(), 2, loop);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("`loopback`"));
  }
  const Workload w{Op::kAgGemm, 64, 64, 64, DType::kBf16, 2};
  OverlapConfig fused;
  fused.algorithm = Algorithm::kFused;
  auto plan = BuildPlan(w, fused);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  pr = RunAsProcesses(*plan, CudaVerifyOnce(), 2);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("`algorithm` fused between MPI processes"));
  }
}

TEST(CudaProcess, AnNcclFailureNamesTheRankAndStepAndStopsThePeers) {
  cuda::FakeGpuConfig faulty;
  faulty.fail_nccl_in = "rank 1 ";
  ProcessRun pr =
      RunAsProcesses(CudaPlan(Op::kAgGemm, 64, 32, 64, 2, Algorithm::kRing), CudaVerifyOnce(), 2, {}, faulty);
  ASSERT_FALSE(pr.outs[1].ok());
  EXPECT_EQ(pr.outs[1].status().code(), StatusCode::kInternal);
  EXPECT_THAT(pr.outs[1].status().message(), HasSubstr("rank 1 step"));
  EXPECT_FALSE(pr.outs[0].ok());  // released, not left waiting
  EXPECT_EQ(pr.stats.live_allocations, 0);
}

// The adapter on its own: broadcast from rank 0 only, all-gather of unequal
// sizes, and no call after an abort.
TEST(CudaLauncherBootstrap, BroadcastsAndGathersThroughTheLauncher) {
  cuda::InProcessGroup group(3, std::chrono::seconds(60));
  std::vector<Status> failures(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      testing::ThreadLauncher launcher(group, r, 3, 3);
      cuda::LauncherBootstrap boot(launcher);
      auto fail = [&](const std::string& why) { failures[size_t(r)] = Status::Internal(why); };
      cuda::Bytes id(128, uint8_t(r == 0 ? 7 : 0));
      if (!boot.Broadcast(id, 0).ok() || id != cuda::Bytes(128, 7)) return fail("broadcast");
      if (boot.Broadcast(id, 1).ok()) return fail("broadcast from rank 1 accepted");
      auto all = boot.AllGather(cuda::Bytes(size_t(r), uint8_t(r)));
      if (!all.ok() || all->size() != 3) return fail("all-gather");
      for (int q = 0; q < 3; ++q) {
        if ((*all)[size_t(q)] != cuda::Bytes(size_t(q), uint8_t(q)))
          return fail("all-gather of rank " + std::to_string(q));
      }
      if (!boot.Barrier().ok()) return fail("barrier");
      boot.Abort("test");
      const Status after = boot.Barrier();
      if (after.ok() || after.message().find("run aborted: test") == std::string::npos) return fail("abort");
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < 3; ++r)
    EXPECT_TRUE(failures[size_t(r)].ok()) << "rank " << r << ": " << failures[size_t(r)].message();
}

TEST(CudaLauncherBootstrap, DamagedGatherIsAnErrorNotACrash) {
  const cuda::Bytes packed = cuda::PackBlobs({{1, 2, 3}, {}, {4}});
  auto back = cuda::UnpackBlobs(packed);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<cuda::Bytes>{{1, 2, 3}, {}, {4}}));
  for (size_t cut = 0; cut < packed.size(); ++cut) {
    EXPECT_FALSE(cuda::UnpackBlobs(cuda::Bytes(packed.begin(), packed.begin() + ptrdiff_t(cut))).ok()) << cut;
  }
}

}  // namespace
}  // namespace braid
