// The launcher and the per-process cpu run without mpirun: one process,
// world size 1, and the bytes ranks exchange.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "braid/cpu_process_backend.h"
#include "braid/cpu_transport.h"
#include "braid/launcher.h"
#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "braid/run_wire.h"

namespace braid {
namespace {

TEST(Launcher, SingleProcessIsRankZeroOfOne) {
  auto l = MakeSingleProcessLauncher();
  EXPECT_EQ(l->world_size(), 1);
  EXPECT_EQ(l->rank(), 0);
  EXPECT_EQ(l->local_rank(), 0);
  EXPECT_TRUE(l->is_root());
  EXPECT_FALSE(l->host_name().empty());
  Blob b{1, 2, 3};
  ASSERT_TRUE(l->Broadcast(b).ok());
  EXPECT_EQ(b, (Blob{1, 2, 3}));
  auto g = l->Gather(b);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->size(), 1u);
  EXPECT_EQ((*g)[0], b);
  auto c = l->MeasureClockOffsets(4);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ((*c)[0].offset_ns, 0);
}

TEST(Launcher, AgreementKeepsTheCodeAndMessage) {
  auto l = MakeSingleProcessLauncher();
  EXPECT_TRUE(AgreeOnStatus(*l, Status::Ok()).ok());
  const Status s = AgreeOnStatus(*l, Status::Invalid("--tp 3 is odd"));
  EXPECT_TRUE(s.is_user_error());
  EXPECT_EQ(s.message(), "--tp 3 is odd") << "every rank failed: no rank prefix";
  EXPECT_EQ(AgreeOnStatus(*l, Status::Internal("x")).code(), StatusCode::kInternal);
}

// The run's notes carry the worst offset (by magnitude) and uncertainty over ranks.
TEST(Launcher, ClockNoteGivesTheWorstOffsetAndUncertainty) {
  const std::vector<ClockOffset> offsets{{0, 0}, {-5200, 140}, {3100, 410}};
  EXPECT_EQ(ClockAlignmentNote(offsets, 16, ""),
            "events aligned to rank 0's clock by ping-pong (shortest of 16 round trips per rank): "
            "largest offset 5200 ns, uncertainty +-410 ns");
  EXPECT_NE(ClockAlignmentNote(offsets, 16, " (tracer clocks)").find("rank 0's clock (tracer clocks) by ping-pong"),
            std::string::npos);
}

TEST(Launcher, WithoutMpiLauncherEnvironmentIsOneProcess) {
  if (StartedByMpiLauncher()) GTEST_SKIP() << "this test process was started by mpirun";
  auto l = MakeLauncher(5);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ((*l)->world_size(), 1);
  EXPECT_EQ(RankFromEnvironment(), 0);
}

CpuProcessBackend OneProcessBackend(Launcher* l) {
  return CpuProcessBackend(l, {}, [](const Plan& plan, int, const CpuBackendOptions&) {
    return Result<std::unique_ptr<Transport>>(std::unique_ptr<Transport>(std::make_unique<CpuTransport>(plan.tp())));
  });
}

TEST(CpuProcessRun, OneRankVerifiesAndReportsItsEvents) {
  auto l = MakeSingleProcessLauncher();
  CpuProcessBackend backend = OneProcessBackend(l.get());
  OverlapConfig c;
  c.algorithm = Algorithm::kChunked;
  c.chunks = 2;
  auto plan = BuildPlan({Op::kGemmRs, 64, 32, 64, DType::kFp32, 1}, c);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  RunOptions o;
  o.iters = 2;
  o.warmup = 1;
  o.verify = true;
  auto out = backend.Run(*plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok);
  EXPECT_EQ(out->verify.worst_rank, 0);
  EXPECT_EQ(out->iteration_ns.size(), 2u);
  EXPECT_FALSE(out->events.empty());
  for (const Event& e : out->events) EXPECT_LE(e.start_ns, e.end_ns);
}

// One process's train step checks its windows against the block's reference
// forward and backward, and fails where the rank computed from another of
// the block's tensors (fc1.wgrad on qkv's X: x without the residual).
TEST(CpuProcessRun, TrainStepVerifiesAgainstTheBlockAndCatchesAWrongTensor) {
  auto l = MakeSingleProcessLauncher();
  CpuProcessBackend backend = OneProcessBackend(l.get());
  ModelSpec m;
  m.name = "block";
  m.hidden = 16;
  m.heads = 2;
  m.kv_heads = 2;
  m.head_dim = 8;
  m.ffn = 32;
  m.gated_mlp = true;
  auto lw = MakeLayerWorkload(m, 8, 1, Phase::kTrain, 1, DType::kFp32);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  auto plan = BuildLayerPlan(*lw, OverlapConfig{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  RunOptions o;
  o.iters = 1;
  o.warmup = 0;
  o.verify = true;
  auto out = backend.Run(*plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
  bool noted = false;
  for (const std::string& n : out->notes) noted |= n.find("reference forward and backward") != std::string::npos;
  EXPECT_TRUE(noted);

  int fc1_wgrad = -1, qkv_wgrad = -1;
  for (size_t i = 0; i < plan->ops.size(); ++i) {
    if (plan->ops[i].name == "fc1.wgrad") fc1_wgrad = int(i);
    if (plan->ops[i].name == "qkv.wgrad") qkv_wgrad = int(i);
  }
  ASSERT_GE(fc1_wgrad, 0);
  ASSERT_GE(qkv_wgrad, 0);
  int moved = 0;
  for (BufferDecl& d : plan->ranks[0].buffers) {
    if (d.role == BufferRole::kInput && d.op == fc1_wgrad && d.input.matrix == Matrix::kA) {
      d.op = qkv_wgrad;
      ++moved;
    }
  }
  ASSERT_GT(moved, 0);
  out = backend.Run(*plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->verify.ok);
  EXPECT_GT(out->verify.max_rel_error, 1e-2);
}

TEST(CpuProcessRun, TpOtherThanTheWorldSizeIsRefused) {
  auto l = MakeSingleProcessLauncher();
  CpuProcessBackend backend = OneProcessBackend(l.get());
  auto plan = BuildPlan({Op::kAgGemm, 64, 32, 64, DType::kFp32, 2}, OverlapConfig{});
  ASSERT_TRUE(plan.ok());
  auto out = backend.Run(*plan, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().is_user_error());
  EXPECT_NE(out.status().message().find("must equal the number of MPI processes (1)"), std::string::npos);
}

TEST(RunWire, ReportsRoundTripAndDamageIsAnError) {
  wire::RankReport r;
  r.host = "node-a";
  r.verify = {true, true, 1e-7, 2};
  r.events.push_back({1, 2, 3, EventKind::kComm, "send_b1", 10, 20, 4096, 0, 1, 2, 3, 44});
  const Blob b = wire::EncodeRankReport(r);
  auto back = wire::DecodeRankReport(b);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->host, "node-a");
  EXPECT_EQ(back->verify.worst_rank, 2);
  ASSERT_EQ(back->events.size(), 1u);
  EXPECT_EQ(back->events[0].name, "send_b1");
  EXPECT_EQ(back->events[0].kind, EventKind::kComm);
  EXPECT_EQ(back->events[0].bytes, 4096);
  EXPECT_EQ(back->events[0].correlation, 44);
  for (size_t cut : {size_t(0), size_t(5), b.size() / 2, b.size() - 1}) {
    EXPECT_FALSE(wire::DecodeRankReport(Blob(b.begin(), b.begin() + long(cut))).ok()) << cut;
  }
  Blob longer = b;
  longer.push_back(0);
  EXPECT_FALSE(wire::DecodeRankReport(longer).ok());
  const wire::RunSummary s{{5, 6, 7}, {true, false, 0.5, 1}};
  auto sb = wire::DecodeRunSummary(wire::EncodeRunSummary(s));
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sb->iteration_ns, (std::vector<int64_t>{5, 6, 7}));
  EXPECT_FALSE(sb->verify.ok);
}

}  // namespace
}  // namespace braid
