// --algo fused on the GEMM core (--fused-engine core) through the cuda
// backend's orchestration on the fakes. ag_gemm: copy-engine pulls on a
// stream of the step's own raise one flag per arrival step, the core's
// launch waits for them (the fake runs it only once they are up and checks
// its tile order). gemm_rs: the core's epilogue scatters tiles to their
// owners' slots and raises their counters, the owners' reduces sum them (no
// add kernel). --verify checks the product end to end; a flag or partial
// that never comes ends in the kernel's timeout record, reported as one
// line naming rank and step or tile; what the core cannot run is refused
// before anything runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "braid/cuda_step_events.h"
#include "braid/step_event.h"
#include "braid/tile_group_events.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using testing::CoreEngine;
using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;
using testing::RunOnFake;

TEST(CudaFusedCore, EveryRankCountVerifiesInLoopbackAndOnAGpuPerRank) {
  struct Variant {
    Op op;
    CommEngine engine;  // ag_gemm: pulls by SMs (the pull kernel) or copy engines
  };
  for (const Variant v : {Variant{Op::kAgGemm, CommEngine::kSm}, Variant{Op::kAgGemm, CommEngine::kCopyEngine},
                          Variant{Op::kGemmRs, CommEngine::kSm}}) {
    for (int p : {2, 4, 8}) {
      for (bool loopback : {true, false}) {
        for (DType dtype : {DType::kBf16, DType::kFp16}) {
          // ag_gemm: M/P = 24 rows, so blocks end inside the core's 128-row
          // tiles and a tile waits for the later of two blocks; gemm_rs:
          // M/P = 128 (a tile must not straddle two owners), N/P ragged.
          const int64_t m = v.op == Op::kAgGemm ? 24 * p : 128 * p;
          const Plan plan = CudaPlan(v.op, m, 40 * p, 64, p, Algorithm::kFused, 1, 1, dtype, v.engine);
          cuda::FakeGpuStats stats;
          auto out = testing::RunOnCore(plan, loopback, uint64_t(p) * 7 + (loopback ? 1 : 0), &stats);
          const std::string where = std::string(OpName(v.op)) + " " + std::string(CommEngineName(v.engine)) + " P " +
                                    std::to_string(p) + " loopback " + std::to_string(loopback) + " " +
                                    std::string(DTypeName(dtype));
          ASSERT_TRUE(out.ok()) << where << ": " << out.status().message();
          EXPECT_TRUE(out->verify.ok) << where << ": " << out->verify.max_rel_error;
          // One plain launch per rank loads the kernel, then one per iteration.
          EXPECT_EQ(stats.core_launches, int64_t(p) * (1 + 3)) << where;
          EXPECT_EQ(stats.fused_launches, 0);
          EXPECT_EQ(stats.core_timeouts, 0);
          EXPECT_EQ(stats.live_allocations, 0);
          if (v.op == Op::kGemmRs) {
            EXPECT_EQ(stats.adds, 0) << "no add kernel: the reduce sums the partials";
          } else if (v.engine == CommEngine::kCopyEngine) {
            EXPECT_GE(stats.flag_writes, int64_t(p) * (p - 1) * 3) << "a flag per pulled block and iteration";
            EXPECT_EQ(stats.core_pull_launches, 0) << where;
          } else {
            EXPECT_EQ(stats.core_pull_launches, int64_t(p) * (1 + 3)) << where;
          }
        }
      }
    }
  }
}

TEST(CudaFusedCore, SchedulesThatRunTheCopiesOrTheReduceLateStillVerify) {
  // The pulls (the reduce) run on the step's own stream; under every seed the
  // core must only read rows whose flag is up, the reduce only sum tiles
  // whose counters are, and the lane's next work wait for both.
  for (CommEngine engine : {CommEngine::kSm, CommEngine::kCopyEngine}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (uint64_t seed : {1, 2, 3, 4, 5, 99}) {
        const Plan plan = CudaPlan(op, 512, 64, 128, 4, Algorithm::kFused, 1, 1, DType::kBf16, engine);
        RunOptions run = CudaVerifyOnce();
        run.warmup = 1;
        cuda::FakeGpuConfig config;
        config.schedule_seed = seed;
        auto out = RunOnFake(plan, run, CoreEngine(true), config);
        ASSERT_TRUE(out.ok()) << out.status().message();
        EXPECT_TRUE(out->verify.ok) << OpName(op) << " seed " << seed;
      }
    }
  }
}

TEST(CudaFusedCore, AFlagNeverRaisedEndsInTheKernelsTimeoutNamingRankAndStep) {
  for (bool report_hangs : {true, false}) {
    // Pulls by SMs (the pull kernel never raises the flag) and by copy
    // engines (its stream write is never issued).
    const CommEngine engine = report_hangs ? CommEngine::kSm : CommEngine::kCopyEngine;
    const Plan plan = CudaPlan(Op::kAgGemm, 256, 64, 64, 4, Algorithm::kFused, 1, 1, DType::kBf16, engine);
    CudaBackendOptions options = CoreEngine(true);
    options.fused_never_set_rank = 1;
    options.fused_never_set_flag = 2;  // arrival step 2 of rank 1: rank 3's block
    options.timeout_s = 4;             // the kernel gives up after 2 s, before the watchdog
    cuda::FakeGpuConfig config;
    config.report_hangs = report_hangs;
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(plan, CudaVerifyOnce(), options, config, &stats);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInternal);
    EXPECT_THAT(out.status().message(),
                HasSubstr("rank 1 step 0 'fused', iteration 0: the GEMM core's ag_gemm timed out on rank 1 waiting "
                          "for the rows of arrival step 2 (rank 3's block): its flag was not raised within 2 s"));
    EXPECT_EQ(out.status().message().find('\n'), std::string::npos);
    EXPECT_EQ(stats.core_timeouts, 1);
    EXPECT_EQ(stats.live_allocations, 0);
  }
  {
    // gemm_rs: rank 1's partials never arrive; rank 0's reduce of its first
    // tile times out.
    const Plan plan = CudaPlan(Op::kGemmRs, 256, 64, 64, 2, Algorithm::kFused);
    CudaBackendOptions options = CoreEngine(true);
    options.fused_never_set_rank = 1;
    options.fused_never_set_flag = 0;
    options.timeout_s = 4;
    auto out = RunOnFake(plan, CudaVerifyOnce(), options);
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(),
                HasSubstr("rank 0 step 0 'fused', iteration 0: the GEMM core's gemm_rs reduce timed out on rank 0 at "
                          "tile (row 0, col 0) of its block: not every rank's partial arrived within 2 s"));
  }
}

TEST(CudaFusedCore, WhatTheCoreCannotRunIsRefusedBeforeAnythingRuns) {
  auto refused = [](const Plan& plan, cuda::FakeGpuConfig config = {}, bool loopback = false) {
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(plan, CudaVerifyOnce(), CoreEngine(loopback), config, &stats);
    EXPECT_EQ(stats.ops, 0) << "refused after work was issued";
    return out.status();
  };
  // gemm_rs: M/P = 64 rows, half the core's 128-row tile, would straddle owners.
  const Plan rs = CudaPlan(Op::kGemmRs, 128, 64, 64, 2, Algorithm::kFused);
  Status st = refused(rs);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("--fused-engine core: "));
  EXPECT_THAT(st.message(), HasSubstr("multiple of the tile's"));
  // Loopback: 132 / 2 = 66 SMs per rank, all of them the reduce's.
  const Plan all_reduce =
      CudaPlan(Op::kGemmRs, 256, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kBf16, CommEngine::kSm, 66);
  EXPECT_THAT(refused(all_reduce, {}, true).message(),
              HasSubstr("the reduce's 66 CTAs (`comm_sms`) leave no SM for the GEMM (66 SMs per rank)"));
  const Plan all_pulls =
      CudaPlan(Op::kAgGemm, 256, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kBf16, CommEngine::kSm, 66);
  EXPECT_THAT(refused(all_pulls, {}, true).message(),
              HasSubstr("the pulls' 66 CTAs (`comm_sms`) leave no SM for the GEMM (66 SMs per rank)"));
  const Plan by_copy_engines =
      CudaPlan(Op::kAgGemm, 256, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kBf16, CommEngine::kCopyEngine, 66);
  EXPECT_TRUE(RunOnFake(by_copy_engines, CudaVerifyOnce(), CoreEngine(true)).ok()) << "copy engines take no SM";
  const Plan fp32 = CudaPlan(Op::kAgGemm, 128, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kFp32);
  EXPECT_THAT(refused(fp32).message(),
              HasSubstr("the fused plans on the GEMM core take bf16, fp16 or fp8_e4m3 (sm_90a) operands, not fp32"));
  const Plan odd_k = CudaPlan(Op::kAgGemm, 128, 64, 60, 2, Algorithm::kFused);
  st = refused(odd_k);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("multiple"));
  const Plan fine = CudaPlan(Op::kAgGemm, 128, 64, 64, 2, Algorithm::kFused);
  const Plan fp16 = CudaPlan(Op::kAgGemm, 128, 64, 64, 2, Algorithm::kFused, 1, 1, DType::kFp16);
  cuda::FakeGpuConfig turing;
  turing.cc_major = 7;
  turing.cc_minor = 5;
  EXPECT_THAT(refused(fp16, turing).message(), HasSubstr("no kernel for compute capability 7.5"));
  cuda::FakeGpuConfig small_smem;
  small_smem.smem_optin = 48 * 1024;
  EXPECT_THAT(refused(fine, small_smem).message(), HasSubstr("bytes of shared memory"));
}

TEST(CudaFusedCore, LayerPlansChainTheCoresStepsThroughTheirOutputs) {
  // A layer's fused ag_gemm and gemm_rs steps, one after another on each
  // rank, each with its own stream, flags and counters: under every seed
  // every op's product verifies (each op has its own buffers; the order of
  // the steps is the next test's).
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kFused;
  auto plan = testing::TinyLayerPlan(256, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  testing::ExpectCoreLayerVerifies(*plan, {1, 2, 3, 4, 5, 6, 7, 8});
}

// The run's note says how the core moved the data, as the set-up issued it:
// gemm_rs's partials go by peer stores whatever `comm_engine` says.
TEST(CudaFusedCore, TheRunsNoteSaysHowEachOpMovedItsData) {
  const auto note = [](Op op, CommEngine engine) {
    const int64_t m = op == Op::kAgGemm ? 48 : 256;
    const Plan plan = CudaPlan(op, m, 80, 64, 2, Algorithm::kFused, 1, 1, DType::kBf16, engine);
    auto out = testing::RunOnCore(plan, true, 1, nullptr);
    EXPECT_TRUE(out.ok()) << out.status().message();
    std::string all;
    if (out.ok()) {
      for (const std::string& n : out->notes) all += n + "\n";
    }
    return all;
  };
  const std::string sm = note(Op::kAgGemm, CommEngine::kSm);
  EXPECT_THAT(sm, HasSubstr("ag_gemm pulls A by the pull kernel's CTAs"));
  EXPECT_THAT(sm, ::testing::Not(HasSubstr("gemm_rs")));
  EXPECT_THAT(note(Op::kAgGemm, CommEngine::kCopyEngine), HasSubstr("ag_gemm pulls A by copy engines"));
  const std::string rs = note(Op::kGemmRs, CommEngine::kCopyEngine);
  EXPECT_THAT(rs, HasSubstr("gemm_rs sends its partials by the epilogue's peer stores (comm_engine ce does not apply"));
  EXPECT_THAT(rs, ::testing::Not(HasSubstr("ag_gemm")));
  EXPECT_THAT(note(Op::kGemmRs, CommEngine::kSm), ::testing::Not(HasSubstr("does not apply")));
}

TEST(CudaFusedCore, AStepAfterAFusedOneStartsWhenItsPullsOrReduceEnded) {
  // The fused step's done event follows its own stream (the pulls, the
  // owner's reduce), not only the GEMM's launch: the next op of a layer
  // waits for the reduced rows (the fake times a reduce from its partials).
  OverlapConfig cfg;
  cfg.algorithm = Algorithm::kFused;
  auto plan = testing::TinyLayerPlan(256, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  RunOptions run;
  run.warmup = 0;
  run.iters = 2;
  auto out = RunOnFake(*plan, run, CoreEngine(true));
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Step events carry their step's name (EventOfStep), one per step here.
  std::map<std::tuple<int, int, std::string>, const Event*> by_name;  // (iteration, rank, name)
  for (const Event& e : out->events) by_name[{e.iteration, e.rank, e.name}] = &e;
  int checked = 0;
  for (int it = 0; it < run.iters; ++it) {
    for (int r = 0; r < plan->tp(); ++r) {
      const RankPlan& rp = plan->ranks[size_t(r)];
      for (const Step& s : rp.steps) {
        for (int d : s.deps) {
          const Step& fused = rp.steps[size_t(d)];
          if (fused.kind != StepKind::kFused) continue;
          // A core step is two events: its GEMM, and "/comm" (pulls or reduce).
          const std::string before_name = EventOfStep(fused, it, r, 0, 0).name;
          const std::string after_name = EventOfStep(s, it, r, 0, 0).name;
          const Event* before = by_name[{it, r, before_name}];
          const Event* before_comm = by_name[{it, r, before_name + "/comm"}];
          const Event* after = by_name[{it, r, after_name}];
          ASSERT_NE(before, nullptr);
          ASSERT_NE(before_comm, nullptr);
          ASSERT_NE(after, nullptr);
          int64_t after_start = after->start_ns;
          if (const Event* c = by_name[{it, r, after_name + "/comm"}]; c != nullptr)
            after_start = std::min(after_start, c->start_ns);
          EXPECT_GE(after_start, std::max(before->end_ns, before_comm->end_ns))
              << "rank " << r << ": " << after->name << " after " << before->name;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(CudaFusedCore, TracedRunsShowEachGroupOfTilesInsideItsFusedStep) {
  // The core stamps each arrival step's (ag_gemm) or owner's (gemm_rs)
  // tiles; every traced iteration of every rank gets one event per group,
  // inside the fused step's event, on its lane, adding no flops.
  constexpr int p = 4;
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    // M/P = 128: each of the core's 128-row tile rows lies in one block.
    const Plan plan = CudaPlan(op, 128 * p, 40 * p, 64, p, Algorithm::kFused);
    RunOptions run;
    run.warmup = 1;
    run.iters = 2;
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(plan, run, CoreEngine(true), {}, &stats);
    ASSERT_TRUE(out.ok()) << out.status().message();
    // Every iteration's launch stamps (the priming launch does not).
    EXPECT_EQ(stats.core_stamped_launches, int64_t(p) * (run.warmup + run.iters));
    // An untraced run reads no stamps, so it sets none up and pays no resets.
    RunOptions untraced = CudaVerifyOnce();
    untraced.trace = false;
    cuda::FakeGpuStats untraced_stats;
    auto quiet = RunOnFake(plan, untraced, CoreEngine(true), {}, &untraced_stats);
    ASSERT_TRUE(quiet.ok()) << quiet.status().message();
    EXPECT_TRUE(quiet->verify.ok);
    EXPECT_GT(untraced_stats.core_launches, 0);
    EXPECT_EQ(untraced_stats.core_stamped_launches, 0);
    std::map<std::pair<int, int>, const Event*> fused, comm;  // (iteration, rank)
    std::map<std::pair<int, int>, std::set<int>> groups;
    std::map<std::pair<int, int>, std::set<int64_t>> starts;
    for (const Event& e : out->events) {
      if (cuda::IsStepEvent(e)) fused[{e.iteration, e.rank}] = &e;
      if (e.kind == EventKind::kComm) comm[{e.iteration, e.rank}] = &e;
    }
    // The step's GEMM and its communication apart (pulls or the reduce), as the sim draws them.
    ASSERT_EQ(fused.size(), size_t(run.iters * p));
    ASSERT_EQ(comm.size(), size_t(run.iters * p));
    for (const auto& [key, c] : comm) {
      const Event& gemm = *fused[key];
      EXPECT_EQ(c->name, gemm.name + "/comm");
      EXPECT_EQ(c->lane, plan.lanes.size() > 1 ? 1 : gemm.lane);
      EXPECT_EQ(c->bytes, plan.ranks[0].steps[0].bytes);
      EXPECT_EQ(gemm.kind, EventKind::kCompute);
      EXPECT_EQ(gemm.flops, plan.ranks[0].steps[0].flops);
      // ag_gemm: the pulls start before the GEMM they feed; gemm_rs: the
      // reduce ends after the GEMM whose partials it sums.
      if (op == Op::kAgGemm) {
        EXPECT_LT(c->start_ns, gemm.start_ns);
      } else {
        EXPECT_GT(c->end_ns, gemm.end_ns);
      }
    }
    for (const Event& e : out->events) {
      if (!cuda::IsTileGroupEvent(e)) continue;
      EXPECT_FALSE(cuda::IsStepEvent(e));
      const Event* step = fused[{e.iteration, e.rank}];
      ASSERT_NE(step, nullptr);
      EXPECT_GE(e.start_ns, step->start_ns) << e.name;
      EXPECT_LE(e.end_ns, step->end_ns) << e.name;
      EXPECT_LT(e.start_ns, e.end_ns) << e.name;
      EXPECT_EQ(e.lane, step->lane);
      EXPECT_EQ(e.flops, 0);
      EXPECT_THAT(e.name, ::testing::StartsWith(step->name + "/tiles."));
      // ag_gemm: the group's source rank; gemm_rs: the owner.
      groups[{e.iteration, e.rank}].insert(e.peer);
      starts[{e.iteration, e.rank}].insert(e.start_ns);
    }
    ASSERT_EQ(groups.size(), size_t(run.iters * p)) << OpName(op);
    for (const auto& [key, peers] : groups) {
      EXPECT_EQ(peers.size(), size_t(p)) << OpName(op) << " iteration " << key.first << " rank " << key.second
                                         << ": a group per rank's block";
      // The stamps start over each launch: stale ones would stretch every
      // group back to an earlier launch and clip them all to the kernel's start.
      EXPECT_EQ(starts[key].size(), size_t(p)) << OpName(op) << ": the groups run one after another";
    }
  }
}

TEST(CudaFusedCore, TheEngineHasOneNameTable) {
  EXPECT_EQ(NameIn(kFusedEngineNames, FusedEngine::kCore), "core");
  EXPECT_EQ(ValueNamed(kFusedEngineNames, "tasks"), FusedEngine::kTasks);
  EXPECT_THAT(ParseNamed(kFusedEngineNames, "--fused-engine", "cutlass").status().message(),
              HasSubstr("unknown --fused-engine 'cutlass' (known: tasks, core)"));
}

}  // namespace
}  // namespace braid
