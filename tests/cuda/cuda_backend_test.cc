// The cuda backend's own behaviour through the fakes: refusals and device
// checks, the knobs reaching cuBLASLt / NCCL / streams, events per step,
// iterations, and failures that name the rank and step.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "braid/layer_workload.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;
using testing::RunOnFake;

TEST(CudaBackend, NoDeviceIsUnavailable) {
  cuda::FakeGpuConfig none;
  none.devices = 0;
  auto out = RunOnFake(CudaPlan(Op::kGemmRs, 16, 8, 16, 2, Algorithm::kRing), CudaVerifyOnce(), {}, none);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(out.status().message(), HasSubstr("no CUDA device"));
}

TEST(CudaBackend, FewerGpusThanTpIsInvalidNamingBothNumbers) {
  cuda::FakeGpuConfig two;
  two.devices = 2;
  auto out = RunOnFake(CudaPlan(Op::kGemmRs, 32, 8, 32, 4, Algorithm::kRing), CudaVerifyOnce(), {}, two);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("`tp` 4 needs 4 GPUs but 2 found"));
}

TEST(CudaBackend, LoopbackRunsEveryRankOnOneGpu) {
  cuda::FakeGpuConfig one;
  one.devices = 1;
  CudaBackendOptions loop;
  loop.loopback = true;
  auto out = RunOnFake(CudaPlan(Op::kAgGemm, 64, 64, 32, 8, Algorithm::kBidirRing, 2, 2), CudaVerifyOnce(), loop, one);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok);
}

// The first real GPU run (H200, loopback) hung at P 4 serial ag_gemm and
// chunked gemm_rs: a kernel's first launch (CUDA lazy loading) waited for the
// device while another rank's stream waited on this thread's flags. The fake
// models lazy loading; every kernel must be loaded before any rank waits.
// The second H200 run (2026-11-28) hung three times more, each at iteration
// 0's first transfer step (chunked ag_gemm P 2 and 4, bidir_ring gemm_rs P 4)
// with every kernel loaded: the fake also makes each stream's first copy and
// flag operation wait for the device, and this test failed until PrimeKernels
// issued them too.
TEST(CudaBackend, EveryKernelIsLoadedBeforeAnyRankWaitsOnAnother) {
  cuda::FakeGpuConfig one;
  one.devices = 1;
  ASSERT_TRUE(one.lazy_module_loading);
  ASSERT_TRUE(one.lazy_stream_setup);
  CudaBackendOptions loop;
  loop.loopback = true;
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
      for (int p : {2, 4}) {
        for (uint64_t seed : {1, 2, 3}) {
          one.schedule_seed = seed;
          cuda::FakeGpuStats stats;
          const int chunks = algo == Algorithm::kSerial ? 1 : 2;
          auto out = RunOnFake(CudaPlan(op, 64, 32, 32, p, algo, chunks, 2), CudaVerifyOnce(), loop, one, &stats);
          ASSERT_TRUE(out.ok()) << OpName(op) << " " << AlgorithmName(algo) << " P=" << p << ": "
                                << out.status().message();
          EXPECT_TRUE(out->verify.ok);
          EXPECT_GT(stats.kernel_loads, 0);
          EXPECT_GE(stats.stream_setups, 2 * p);  // a copy and a flag operation per rank at least
        }
      }
    }
  }
}

TEST(CudaBackend, Bf16OnAPreAmpereDeviceIsInvalid) {
  cuda::FakeGpuConfig turing;
  turing.name = "Tesla T4";
  turing.cc_major = 7;
  turing.cc_minor = 5;
  auto out = RunOnFake(CudaPlan(Op::kGemmRs, 16, 8, 16, 2, Algorithm::kRing), CudaVerifyOnce(), {}, turing);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("bf16 needs compute capability 8.0"));
  EXPECT_THAT(out.status().message(), HasSubstr("Tesla T4 is 7.5"));
}

TEST(CudaBackend, CopyEngineWithoutPeerAccessIsInvalid) {
  cuda::FakeGpuConfig pcie;
  pcie.peer_access = false;
  const Plan plan = CudaPlan(Op::kGemmRs, 16, 8, 16, 2, Algorithm::kRing, 1, 1, DType::kBf16, CommEngine::kCopyEngine);
  auto out = RunOnFake(plan, CudaVerifyOnce(), {}, pcie);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("GPU 0 cannot map GPU 1's memory"));
}

TEST(CudaBackend, ATopologyGpuOtherThanTheDeviceIsANoteNotAnError) {
  CudaBackendOptions o;
  o.expected_gpu = "a100-sxm";
  auto out = RunOnFake(CudaPlan(Op::kGemmAr, 16, 8, 16, 2, Algorithm::kSerial), CudaVerifyOnce(), o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::string notes = ::testing::PrintToString(out->notes);
  EXPECT_THAT(notes, HasSubstr("'a100-sxm' and 'NVIDIA H100 80GB HBM3'"));
  // The same model under CUDA's name is no mismatch.
  o.expected_gpu = "h100-sxm";
  auto same = RunOnFake(CudaPlan(Op::kGemmAr, 16, 8, 16, 2, Algorithm::kSerial), CudaVerifyOnce(), o);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_THAT(::testing::PrintToString(same->notes), ::testing::Not(HasSubstr("topology names")));
}

TEST(CudaBackend, BadTimeoutIsInvalid) {
  CudaBackendOptions o;
  o.timeout_s = 0;
  auto out = RunOnFake(CudaPlan(Op::kGemmAr, 16, 8, 16, 2, Algorithm::kSerial), CudaVerifyOnce(), o);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("`timeout_s`"));
}

// NCCL's CTAs follow comm_sms; cuBLASLt's SM count target follows it only
// with sm_margin (TE's set_sm_margin), as the sim models it.
TEST(CudaBackend, CommSmBudgetReachesNcclAndWithAMarginCublasLt) {
  for (bool margin : {false, true}) {
    cuda::FakeGpuStats stats;
    OverlapConfig cfg = testing::OverlapConfigOf(Algorithm::kChunked, 2, 1);
    cfg.comm_sms = 20;
    cfg.sm_margin = margin;
    const Plan plan = testing::MustBuildPlan({Op::kGemmRs, 32, 16, 32, DType::kBf16, 2}, cfg);
    auto out = RunOnFake(plan, CudaVerifyOnce(), {}, {}, &stats);
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_FALSE(stats.sm_count_targets.empty());
    for (int t : stats.sm_count_targets) EXPECT_EQ(t, margin ? 132 - 20 : 0) << margin;
    ASSERT_EQ(stats.comm_max_ctas.size(), 2u);
    EXPECT_EQ(stats.comm_max_ctas[0], 20);
  }
}

// In a block each op's GEMMs take their own margin; what one communicator
// cannot give per op is said.
TEST(CudaBackend, EachOpsGemmsTakeTheirOwnMargin) {
  LayerWorkload lw = *MakeLayerWorkload(testing::CudaTinyModel(), 16, 1, Phase::kPrefill, 2, DType::kBf16);
  for (LayerOp& op : lw.ops) {
    if (op.kind != LayerOpKind::kTpGemm) continue;
    OverlapConfig c = testing::OverlapConfigOf(Algorithm::kChunked, 2, 1);
    c.comm_sms = op.gemm.op == Op::kAgGemm ? 8 : 24;
    c.sm_margin = op.gemm.op == Op::kGemmRs;
    op.config = c;
  }
  auto plan = BuildLayerPlan(lw, OverlapConfig{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  cuda::FakeGpuStats stats;
  auto out = RunOnFake(*plan, CudaVerifyOnce(), {}, {}, &stats);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::multiset<int> targets(stats.sm_count_targets.begin(), stats.sm_count_targets.end());
  EXPECT_GT(targets.count(132 - 24), 0u);  // the reduce-scatter GEMMs, with their margin
  EXPECT_GT(targets.count(0), 0u);         // the all-gather GEMMs and attention, without
  EXPECT_EQ(targets.size(), targets.count(0) + targets.count(132 - 24));
  EXPECT_THAT(::testing::PrintToString(out->notes), HasSubstr("per-op comm SMs not honoured"));
}

TEST(CudaBackend, AMarginWithoutACountIsRefusedNamingTheOp) {
  OverlapConfig cfg = testing::OverlapConfigOf(Algorithm::kChunked, 2, 1);
  cfg.sm_margin = true;
  const Plan plan = testing::MustBuildPlan({Op::kGemmRs, 32, 16, 32, DType::kBf16, 2}, cfg);
  auto out = RunOnFake(plan, CudaVerifyOnce());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("`sm_margin` on the cuda backend needs `comm_sms`"));
}

TEST(CudaBackend, CommLanesGetTheHigherStreamPriority) {
  cuda::FakeGpuStats stats;
  const Plan plan = CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing, 1, 2);
  auto out = RunOnFake(plan, CudaVerifyOnce(), {}, {}, &stats);
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<int> lane_priorities;
  for (const Lane& l : plan.lanes) lane_priorities.push_back(l.priority);
  // Each rank creates its lanes in order first.
  ASSERT_GE(stats.stream_priorities.size(), 2 * plan.lanes.size());
  const std::multiset<int> created(stats.stream_priorities.begin(), stats.stream_priorities.end());
  for (int p : lane_priorities) EXPECT_GE(created.count(p), 2u);
  EXPECT_GT(plan.lanes[1].priority, plan.lanes[0].priority);
}

TEST(CudaBackend, EveryStepOfEveryTimedIterationHasAnEvent) {
  RunOptions o;
  o.warmup = 1;
  o.iters = 3;
  o.verify = true;
  const Plan plan = CudaPlan(Op::kGemmRs, 64, 32, 64, 4, Algorithm::kRing, 2, 2);
  auto out = RunOnFake(plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok);
  EXPECT_EQ(out->iteration_ns.size(), 3u);
  EXPECT_THAT(::testing::PrintToString(out->notes), ::testing::Not(HasSubstr("no GPU activity record")));
  std::set<std::tuple<int, int, std::string>> seen;
  for (const Event& e : out->events) {
    EXPECT_GE(e.iteration, 0);
    EXPECT_LT(e.iteration, 3);
    EXPECT_LE(e.start_ns, e.end_ns);
    seen.insert({e.iteration, e.rank, e.name});
  }
  for (int it = 0; it < 3; ++it) {
    for (int r = 0; r < plan.tp(); ++r) {
      for (const Step& s : plan.ranks[size_t(r)].steps) {
        EXPECT_TRUE(seen.count({it, r, s.name})) << "no event for iteration " << it << " rank " << r << " " << s.name;
      }
    }
  }
}

// The ring's transfers run on comm streams while GEMMs run on the compute
// stream: in the fake's logical time some comm event overlaps some GEMM.
TEST(CudaBackend, RingCommunicationOverlapsItsGemms) {
  const Plan plan = CudaPlan(Op::kAgGemm, 64, 64, 64, 4, Algorithm::kRing, 1, 1);
  auto out = RunOnFake(plan, CudaVerifyOnce());
  ASSERT_TRUE(out.ok()) << out.status().message();
  bool overlap = false;
  for (const Event& c : out->events) {
    if (c.kind != EventKind::kComm || c.rank != 0) continue;
    for (const Event& g : out->events) {
      if (g.kind == EventKind::kCompute && g.rank == 0 && g.start_ns < c.end_ns && c.start_ns < g.end_ns)
        overlap = true;
    }
  }
  EXPECT_TRUE(overlap);
}

TEST(CudaBackend, SeveralIterationsOfTheFlagTransportKeepTheResult) {
  // Flags count iterations (epochs): a stale flag would release a wait early.
  RunOptions o;
  o.warmup = 2;
  o.iters = 3;
  o.verify = true;
  CudaBackendOptions loop;
  loop.loopback = true;
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    auto out = RunOnFake(CudaPlan(op, 32, 16, 32, 4, Algorithm::kChunked, 2, 2), o, loop);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ok) << OpName(op);
  }
}

TEST(CudaBackend, EveryScheduleOrderGivesTheSameResult) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    cuda::FakeGpuConfig c;
    c.schedule_seed = seed;
    auto out = RunOnFake(CudaPlan(Op::kGemmRs, 64, 16, 64, 4, Algorithm::kBidirRing, 2, 2), CudaVerifyOnce(), {}, c);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ok) << "seed " << seed;
  }
}

TEST(CudaBackend, AWrongGemmFailsVerification) {
  cuda::FakeGpuConfig c;
  c.corrupt_matmul_in = "rank 1 step";
  auto out = RunOnFake(CudaPlan(Op::kAgGemm, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), {}, c);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ran);
  EXPECT_FALSE(out->verify.ok);
  EXPECT_EQ(out->verify.worst_rank, 1);
}

TEST(CudaBackend, ALostFlagWriteIsReportedAsAHangNamingTheStep) {
  cuda::FakeGpuConfig c;
  c.drop_flag_writes_in = "rank 0 step";
  CudaBackendOptions loop;
  loop.loopback = true;
  auto out = RunOnFake(CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), loop, c);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInternal);
  EXPECT_THAT(out.status().message(), HasSubstr("would-be hang"));
  EXPECT_THAT(out.status().message(), HasSubstr("rank 1 step"));
  EXPECT_THAT(out.status().message(), HasSubstr("waits for a flag"));
}

// On a GPU a hang never reports itself: the watchdog cuts the iteration
// after --timeout and names the first step that did not finish.
TEST(CudaBackend, TheWatchdogCutsAHangAndNamesTheStep) {
  cuda::FakeGpuConfig c;
  c.drop_flag_writes_in = "rank 0 step";
  c.report_hangs = false;
  CudaBackendOptions o;
  o.loopback = true;
  o.timeout_s = 0.2;
  cuda::FakeGpuStats stats;
  auto out = RunOnFake(CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), o, c, &stats);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInternal);
  EXPECT_THAT(out.status().message(), HasSubstr("not finished after 0.2 s (`timeout_s`; lanes at: "));
  // Every lane says where it stands: the stuck recv's lane names its step.
  EXPECT_THAT(out.status().message(),
              ::testing::MatchesRegex(".*lanes at: compute: [^;]*comm0: step [0-9]+ '[^']*'.*"));
  // The ranks raise their own flags before freeing: a stream left waiting
  // would make cudaFree wait forever (the H200's hung runs never printed).
  EXPECT_EQ(stats.frees_that_would_hang, 0);
  EXPECT_THAT(out.status().message(), ::testing::MatchesRegex(".*rank [01] step [0-9]+ '.*"));
}

TEST(CudaBackend, AnNcclErrorNamesTheRankTheStepAndNcclsText) {
  cuda::FakeGpuConfig c;
  c.fail_nccl_in = "rank 1 step";
  cuda::FakeGpuStats stats;
  auto out = RunOnFake(CudaPlan(Op::kAgGemm, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), {}, c, &stats);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInternal);
  EXPECT_THAT(out.status().message(), ::testing::StartsWith("rank 1 step "));
  EXPECT_THAT(out.status().message(), HasSubstr("failed: unhandled cuda error"));
  EXPECT_EQ(out.status().message().find('\n'), std::string::npos);
  EXPECT_GE(stats.comm_aborts, 1) << "the failing rank aborts its communicator";
}

TEST(CudaBackend, LayerPlansRunTheirComputeStepsAndVerify) {
  const ModelSpec tiny = testing::CudaTinyModel();
  for (Algorithm algo : {Algorithm::kRing, Algorithm::kIso}) {
    const bool sp = algo != Algorithm::kIso;
    auto lw = MakeLayerWorkload(tiny, 16, 1, Phase::kPrefill, 2, DType::kBf16, sp);
    ASSERT_TRUE(lw.ok()) << lw.status().message();
    OverlapConfig cfg;
    cfg.algorithm = algo;
    cfg.chunks = 2;
    cfg.comm_lanes = 2;
    auto plan = BuildLayerPlan(*lw, cfg);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(*plan, CudaVerifyOnce(), {}, {}, &stats);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ok) << AlgorithmName(algo) << " " << out->verify.max_rel_error;
    bool attention = false;
    for (const Event& e : out->events) attention = attention || e.name.find("attention") != std::string::npos;
    EXPECT_TRUE(attention) << "attention steps have events";
  }
}

// A training step: the backward GEMMs are cuBLASLt GEMMs like the forward's
// (each op multiplies its own inputs), TE's bulk pair puts the wgrad's
// all-gather ahead of the dgrad's reduce-scatter on the comm stream, and an
// external wgrad's slices run between its dgrad's ring steps.
TEST(CudaBackend, TrainPlansRunEveryPassAndVerify) {
  auto lw = MakeLayerWorkload(testing::CudaTinyModel(), 16, 1, Phase::kTrain, 2, DType::kBf16);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  for (Algorithm algo : {Algorithm::kBulk, Algorithm::kRing}) {
    OverlapConfig cfg;
    cfg.algorithm = algo;
    auto plan = BuildLayerPlan(*lw, cfg);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(*plan, CudaVerifyOnce(), {}, {}, &stats);
    ASSERT_TRUE(out.ok()) << AlgorithmName(algo) << ": " << out.status().message();
    EXPECT_TRUE(out->verify.ok) << AlgorithmName(algo) << " " << out->verify.max_rel_error;
    // One event per step of every op of both passes (one timed iteration).
    EXPECT_EQ(out->events.size(), plan->total_steps()) << AlgorithmName(algo);
    bool backward_attention = false;
    for (const Event& e : out->events) backward_attention = backward_attention || e.name == "attention.backward";
    EXPECT_TRUE(backward_attention) << AlgorithmName(algo);
  }
}

TEST(CudaBackend, ToleranceGrowsWithKAndShrinksWithPrecision) {
  EXPECT_LT(CudaVerifyTolerance(DType::kFp32, 4096, 8, false), CudaVerifyTolerance(DType::kFp16, 4096, 8, false));
  EXPECT_LT(CudaVerifyTolerance(DType::kFp16, 4096, 8, false), CudaVerifyTolerance(DType::kBf16, 4096, 8, false));
  EXPECT_LT(CudaVerifyTolerance(DType::kFp32, 64, 2, false), CudaVerifyTolerance(DType::kFp32, 65536, 2, false));
  EXPECT_LT(CudaVerifyTolerance(DType::kFp32, 64, 2, false), CudaVerifyTolerance(DType::kFp32, 64, 2, true));
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// A CUDA call that never returns (a wedged driver) cannot be cut by the
// watchdog, which runs between calls: the wedge guard ends the process with
// one line naming what every rank was doing, instead of a silent hang.
TEST(CudaBackendDeathTest, ARankStuckInsideACudaCallEndsTheProcessWithOneLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  cuda::FakeGpuConfig c;
  c.devices = 1;
  c.block_thread_in = "rank 1 step";
  c.report_hangs = false;
  CudaBackendOptions o;
  o.loopback = true;
  o.timeout_s = 0.2;
  o.wedge_deadline_s = 0.5;  // before the 1 s stall limit
  EXPECT_EXIT((void)RunOnFake(CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), o, c),
              ::testing::ExitedWithCode(1),
              "cuda backend: the rank threads did not return within 0.5 s \\(`wedge_deadline_s`\\).*"
              "rank 1: issuing step [0-9]+ 'gemm[^']*' in iteration 0");
}

// The H100's silent loopback hang (2026-11-26): a rank sat inside one issue
// call while the watchdog, which runs between calls, never fired and the
// whole-run deadline was minutes away. One issue call longer than the stall
// limit (timeout_s, 1 s at least) is a wedge: the process ends within it,
// naming the rank, its step and where every other rank is.
TEST(CudaBackendDeathTest, ARankStuckIssuingOneStepEndsTheProcessAtTheStallLimit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  cuda::FakeGpuConfig c;
  c.devices = 1;
  c.block_thread_in = "rank 1 step";
  c.report_hangs = false;
  CudaBackendOptions o;
  o.loopback = true;
  o.timeout_s = 0.2;  // the default whole-run deadline is 121 s away
  EXPECT_EXIT((void)RunOnFake(CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), o, c),
              ::testing::ExitedWithCode(1),
              "cuda backend: rank 1: issuing step [0-9]+ 'gemm[^']*' in iteration 0 for more than 1 s "
              "\\(`timeout_s`, 1 s at least\\).*rank 0: [a-z]+.*rank 1: issuing");
}

// A rank that failed and then hangs in tear-down (cudaFree waits for the
// device) returns its result only after tear-down: the stall guard's line
// must carry the failure, or the cause dies with the process.
TEST(CudaBackendDeathTest, ATearDownThatHangsAfterAFailureStillSaysWhyTheRankFailed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  cuda::FakeGpuConfig c;
  c.devices = 1;
  c.drop_flag_writes_in = "rank 0 step";
  c.report_hangs = false;
  c.block_frees = true;
  CudaBackendOptions o;
  o.loopback = true;
  o.timeout_s = 0.2;
  EXPECT_EXIT((void)RunOnFake(CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing), CudaVerifyOnce(), o, c),
              ::testing::ExitedWithCode(1),
              "cuda backend: rank [01]: releasing its buffers \\(it failed: [^)]*not finished after 0.2 s.*"
              "for more than 1 s");
}

TEST(CudaBackend, AWedgeDeadlineBelowZeroIsInvalid) {
  CudaBackendOptions o;
  o.wedge_deadline_s = -1;
  const Status s = CheckCudaBackendOptions(o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("`wedge_deadline_s`"));
}

}  // namespace
}  // namespace braid
