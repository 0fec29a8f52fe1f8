// --comm-engine ce through NCCL symmetric windows: every rank's flags and
// inbox in one registered window, peers' addresses from the window, copies
// and stream-ordered flags into them, across processes (fake_processes.h)
// and between GPUs of one process; and the fake's model of process memory
// that this rests on (a process reaches another's memory only through a
// window both registered, never past its end).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "braid/cuda_fakes.h"
#include "braid/layer_workload.h"
#include "braid/peer_memory.h"
#include "cuda_test_util.h"
#include "fake_processes.h"

namespace braid {
namespace {

using testing::CudaPlan;
using testing::CudaVerifyOnce;
using ::testing::HasSubstr;
using testing::ProcessRun;
using testing::RunAsFakeProcesses;

Plan CePlan(Op op, int p, Algorithm algo, DType dtype = DType::kBf16) {
  const int chunks = algo == Algorithm::kSerial ? 1 : 2;
  return CudaPlan(op, 16 * p, 8 * p, 8 * p, p, algo, chunks, 1 + p % 2, dtype, CommEngine::kCopyEngine);
}

RunOptions TracedTwice() {
  RunOptions o = CudaVerifyOnce();
  o.warmup = 1;
  o.iters = 2;
  return o;
}

bool HasNote(const RunOutput& out, const std::string& text) {
  for (const std::string& n : out.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(CudaCeProcess, EveryAlgorithmAndOpVerifiesAsProcessesAtTp234) {
  const DType dtypes[] = {DType::kBf16, DType::kFp16, DType::kFp32};
  int verified = 0, which = 0;
  for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
      for (int p : {2, 3, 4}) {
        const Plan plan = CePlan(op, p, algo, dtypes[which++ % 3]);
        SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
        const ProcessRun pr = RunAsFakeProcesses(plan, TracedTwice(), p);
        for (int r = 0; r < p; ++r) {
          ASSERT_TRUE(pr.outs[size_t(r)].ok()) << "rank " << r << ": " << pr.outs[size_t(r)].status().message();
          const RunOutput& out = *pr.outs[size_t(r)];
          EXPECT_TRUE(out.verify.ran);
          EXPECT_TRUE(out.verify.ok) << "rank " << r << " error " << out.verify.max_rel_error;
          EXPECT_EQ(out.events.size(), r == 0 ? plan.total_steps() * 2 : 0u);
        }
        EXPECT_TRUE(HasNote(*pr.outs[0], "copy-engine copies into the peers' NCCL symmetric windows"));
        // The data moved by copies and flags, not by NCCL; NCCL only mapped
        // one window per process, registered on one communicator each.
        EXPECT_EQ(pr.stats.nccl_sends + pr.stats.nccl_recvs + pr.stats.nccl_collectives, 0);
        EXPECT_GT(pr.stats.flag_writes, 0);
        EXPECT_EQ(pr.stats.flag_waits, pr.stats.flag_writes);
        EXPECT_EQ(pr.stats.comms, p);
        EXPECT_EQ(pr.stats.windows_registered, p);
        EXPECT_EQ(pr.stats.live_allocations, 0) << "device memory leaked";
        if (!::testing::Test::HasFailure()) ++verified;
      }
    }
  }
  EXPECT_EQ(verified, 36);
}

// A whole layer (attention-like compute steps, four GEMM ops, iso and ring)
// as processes over windows.
TEST(CudaCeProcess, LayerPlansVerifyAsProcesses) {
  for (Algorithm algo : {Algorithm::kRing, Algorithm::kIso}) {
    const bool sequence_parallel = algo != Algorithm::kIso;  // iso: TP inference without SP
    auto lw = MakeLayerWorkload(testing::CudaTinyModel(), 16, 1, Phase::kPrefill, 2, DType::kBf16, sequence_parallel);
    ASSERT_TRUE(lw.ok()) << lw.status().message();
    OverlapConfig cfg;
    cfg.algorithm = algo;
    cfg.chunks = 2;
    cfg.comm_engine = CommEngine::kCopyEngine;
    auto plan = BuildLayerPlan(*lw, cfg);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const ProcessRun pr = RunAsFakeProcesses(*plan, CudaVerifyOnce(), 2);
    for (const auto& out : pr.outs) {
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_TRUE(out->verify.ok) << out->verify.max_rel_error;
    }
    EXPECT_EQ(pr.outs[0]->events.size(), plan->total_steps());
    EXPECT_EQ(pr.stats.windows_registered, 2);
    EXPECT_EQ(pr.stats.nccl_sends + pr.stats.nccl_collectives, 0);
    EXPECT_EQ(pr.stats.live_allocations, 0);
  }
}

TEST(CudaCeProcess, EveryScheduleOrderGivesTheSameNumbers) {
  const Plan plan = CePlan(Op::kGemmRs, 4, Algorithm::kBidirRing, DType::kFp32);
  std::set<double> errors;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    cuda::FakeGpuConfig config;
    config.schedule_seed = seed;
    const ProcessRun pr = RunAsFakeProcesses(plan, CudaVerifyOnce(), 4, {}, config);
    ASSERT_TRUE(pr.outs[0].ok()) << pr.outs[0].status().message();
    EXPECT_TRUE(pr.outs[0]->verify.ok) << "seed " << seed;
    errors.insert(pr.outs[0]->verify.max_rel_error);
  }
  EXPECT_EQ(errors.size(), 1u) << "the result depends on the order the fake ran ready copies in";
}

TEST(CudaCeProcess, PeersOnDifferentHostsAreBadInputOnEveryRankBeforeAnyAllocation) {
  const Plan plan = CePlan(Op::kAgGemm, 2, Algorithm::kRing);
  // One process per host: copy engines cannot reach the other host's GPU.
  const ProcessRun pr = RunAsFakeProcesses(plan, CudaVerifyOnce(), 2, {}, {}, 1);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("`comm_engine` ce needs every GPU to map its peers' memory"));
    EXPECT_THAT(out.status().message(), HasSubstr("different hosts ('host0', 'host1')"));
    EXPECT_EQ(out.status().message().find('\n'), std::string::npos) << "one line";
  }
  EXPECT_EQ(pr.stats.comms, 0);
  EXPECT_EQ(pr.stats.ops, 0);
  EXPECT_EQ(pr.stats.live_allocations, 0);
}

TEST(CudaCeProcess, GpusThatAreNotPeersAreBadInputOnEveryRank) {
  cuda::FakeGpuConfig no_p2p;
  no_p2p.peer_access = false;
  const ProcessRun pr = RunAsFakeProcesses(CePlan(Op::kGemmRs, 3, Algorithm::kRing), CudaVerifyOnce(), 3, {}, no_p2p);
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(
        out.status().message(),
        HasSubstr("`comm_engine` ce needs peer access, and GPU 0 (rank 0 and rank 1) cannot map GPU 1's memory"));
  }
  EXPECT_EQ(pr.stats.comms, 0);
  // The same plan over NCCL (--comm-engine sm) needs no peer mapping.
  const ProcessRun sm =
      RunAsFakeProcesses(CudaPlan(Op::kGemmRs, 48, 24, 24, 3, Algorithm::kRing, 2), CudaVerifyOnce(), 3, {}, no_p2p);
  for (const auto& out : sm.outs) EXPECT_TRUE(out.ok()) << out.status().message();
}

TEST(CudaCeProcess, ALostFlagWriteBetweenProcessesIsAWouldBeHangNamingTheStep) {
  cuda::FakeGpuConfig lossy;
  lossy.drop_flag_writes_in = "rank 0 ";
  const ProcessRun pr = RunAsFakeProcesses(CePlan(Op::kAgGemm, 2, Algorithm::kRing), CudaVerifyOnce(), 2, {}, lossy);
  bool named = false;
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    const std::string& m = out.status().message();
    named = named || (m.find("would-be hang") != std::string::npos &&
                      m.find("waits for a flag to reach 1 (it is 0)") != std::string::npos);
  }
  EXPECT_TRUE(named) << pr.outs[0].status().message() << " | " << pr.outs[1].status().message();
  EXPECT_EQ(pr.stats.live_allocations, 0);
  // The failed ranks aborted their communicators and freed the windows
  // without deregistering them through the freed communicators.
  EXPECT_GT(pr.stats.comm_aborts, 0);
  EXPECT_EQ(pr.stats.calls_after_abort, 0);
}

TEST(CudaCeProcess, RanksThatDisagreeOnTheWindowSizeFailWithOneClearLine) {
  // Rank 1 was given a plan with longer rows of A (K = 128): its window
  // (12 KiB) is larger than rank 0's (4 KiB), which would be too small for
  // what rank 1 sends.
  const Plan small = CePlan(Op::kAgGemm, 2, Algorithm::kRing);
  const Plan large =
      CudaPlan(Op::kAgGemm, 64, 16, 128, 2, Algorithm::kRing, 2, 1, DType::kBf16, CommEngine::kCopyEngine);
  const ProcessRun pr = RunAsFakeProcesses({&small, &large}, CudaVerifyOnce(), 2);
  bool named = false;
  for (const auto& out : pr.outs) {
    ASSERT_FALSE(out.ok());
    named = named || out.status().message().find("registered window #0 with different sizes") != std::string::npos;
  }
  EXPECT_TRUE(named) << pr.outs[0].status().message() << " | " << pr.outs[1].status().message();
  EXPECT_EQ(pr.stats.ops, 0) << "nothing may run on windows the ranks disagree on";
  EXPECT_EQ(pr.stats.live_allocations, 0);
  // The failed ranks aborted their communicators and freed the windows
  // without deregistering them through the freed communicators.
  EXPECT_GT(pr.stats.comm_aborts, 0);
  EXPECT_EQ(pr.stats.calls_after_abort, 0);
}

TEST(CudaCeProcess, GpusOfOneProcessUseNcclWindowsAndLoopbackPlainBuffers) {
  const Plan plan = CePlan(Op::kGemmAr, 4, Algorithm::kChunked);
  for (bool loopback : {false, true}) {
    CudaBackendOptions options;
    options.loopback = loopback;
    cuda::FakeGpuStats stats;
    auto out = testing::RunOnFake(plan, CudaVerifyOnce(), options, {}, &stats);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->verify.ok);
    EXPECT_EQ(stats.windows_registered, loopback ? 0 : 4);
    EXPECT_EQ(stats.comms, loopback ? 0 : 4);
    EXPECT_TRUE(HasNote(*out, loopback ? "on the one GPU" : "NCCL symmetric windows"));
    EXPECT_EQ(stats.live_allocations, 0);
  }
}

}  // namespace

namespace cuda {
namespace {

// Two processes of one job in one thread: `on` makes process r's device current.
struct TwoProcesses {
  FakeGpu gpu;
  FakeProcess proc[2] = {gpu.NewProcess(), gpu.NewProcess()};
  NcclComm comm[2] = {nullptr, nullptr};
  GpuStream stream[2] = {nullptr, nullptr};

  TwoProcesses() {
    auto id = proc[0].nccl->GetUniqueId();
    for (int r = 0; r < 2; ++r) {
      EXPECT_TRUE(On(r).ok());
      auto c = proc[r].nccl->CommInitRank(2, *id, r, {});
      auto s = proc[r].cuda->CreateStream(0);
      EXPECT_TRUE(c.ok() && s.ok());
      comm[r] = *c;
      stream[r] = *s;
    }
  }
  Status On(int r) { return proc[r].cuda->SetDevice(r); }
  // A window of `bytes` on process r: ncclMemAlloc of `alloc` bytes (at
  // least `bytes`), of which the first `bytes` are registered.
  struct Registered {
    DevPtr buf = nullptr;
    NcclWindow window = nullptr;
  };
  Registered Window(int r, size_t bytes, size_t alloc = 0) {
    EXPECT_TRUE(On(r).ok());
    auto p = proc[r].nccl->MemAlloc(std::max(bytes, alloc));
    EXPECT_TRUE(p.ok());
    auto w = proc[r].nccl->WindowRegister(comm[r], *p, bytes);
    EXPECT_TRUE(w.ok()) << w.status().message();
    return {*p, w.ok() ? *w : nullptr};
  }
};

TEST(CudaFakeProcesses, AnotherProcessesDeviceAddressIsCaughtWithoutAWindow) {
  TwoProcesses t;
  ASSERT_TRUE(t.On(0).ok());
  auto theirs = t.proc[0].cuda->Malloc(256);  // process 0's plain cudaMalloc
  ASSERT_TRUE(t.On(1).ok());
  auto mine = t.proc[1].cuda->Malloc(256);
  ASSERT_TRUE(theirs.ok() && mine.ok());
  // Process 1 learned the raw address (say through MPI) and copies into it.
  const Status s = t.proc[1].cuda->Copy2D(*theirs, 256, *mine, 256, 256, 1, t.stream[1]);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("touches memory of process 0"));
  EXPECT_THAT(s.message(), HasSubstr("a peer pointer used before registration"));
  // Enabling peer access maps the peer device's allocations of this process, not another's.
  FakeGpu gpu;
  FakeProcess a = gpu.NewProcess(), b = gpu.NewProcess();
  ASSERT_TRUE(a.cuda->SetDevice(0).ok());
  auto in_a = a.cuda->Malloc(64);
  ASSERT_TRUE(b.cuda->SetDevice(1).ok());
  ASSERT_TRUE(b.cuda->EnablePeerAccess(0).ok());
  auto stream = b.cuda->CreateStream(0);
  ASSERT_TRUE(in_a.ok() && stream.ok());
  EXPECT_THAT(b.cuda->Memset(*in_a, 0, 64, *stream).message(), HasSubstr("touches memory of process 0"));
  uint8_t byte = 0;
  EXPECT_THAT(b.cuda->Download(&byte, *in_a, 1).message(), HasSubstr("touches memory of process 0"));
}

TEST(CudaFakeProcesses, APeerPointerUsedBeforeThisRankRegisteredIsCaught) {
  TwoProcesses t;
  DevPtr w0 = t.Window(0, 4096).buf;
  // Process 1 has not registered its window #0 yet, so NCCL has mapped nothing here.
  ASSERT_TRUE(t.On(1).ok());
  const Status early = t.proc[1].cuda->WriteFlag(w0, 1, t.stream[1]);
  ASSERT_FALSE(early.ok());
  EXPECT_THAT(early.message(), HasSubstr("rank 0's NCCL window #0 is not mapped on device 1"));
  EXPECT_THAT(early.message(), HasSubstr("a peer pointer used before registration"));
}

TEST(CudaFakeProcesses, WindowsBothRanksRegisteredMapEachOtherUntilDeregistered) {
  TwoProcesses t;
  const auto r0 = t.Window(0, 4096);
  const auto r1 = t.Window(1, 4096);
  DevPtr w0 = r0.buf;
  ASSERT_TRUE(t.On(1).ok());
  auto src = t.proc[1].cuda->Malloc(64);
  ASSERT_TRUE(src.ok());
  const std::vector<uint8_t> bytes(64, 7);
  ASSERT_TRUE(t.proc[1].cuda->Upload(*src, bytes.data(), bytes.size()).ok());
  ASSERT_TRUE(t.proc[1].cuda->Copy2D(static_cast<char*>(w0) + 128, 64, *src, 64, 64, 1, t.stream[1]).ok());
  ASSERT_TRUE(t.proc[1].cuda->WriteFlag(w0, 3, t.stream[1]).ok());
  // Process 0's stream waits on the flag in its own window, then sees the bytes.
  ASSERT_TRUE(t.On(0).ok());
  ASSERT_TRUE(t.proc[0].cuda->WaitFlag(w0, 3, t.stream[0]).ok());
  auto done = t.proc[0].cuda->Query(t.stream[0]);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(*done);
  std::vector<uint8_t> got(64);
  ASSERT_TRUE(t.proc[0].cuda->Download(got.data(), static_cast<char*>(w0) + 128, 64).ok());
  EXPECT_EQ(got, bytes);
  // The peer pointers NCCL hands out are the same addresses.
  auto ptrs = t.proc[1].nccl->WindowPeerPointers(r1.window, 2);
  ASSERT_TRUE(ptrs.ok()) << ptrs.status().message();
  EXPECT_EQ((*ptrs)[0], w0);
  EXPECT_EQ((*ptrs)[1], r1.buf);
  // After rank 0 deregisters, the address maps nothing for process 1.
  ASSERT_TRUE(t.proc[0].nccl->WindowDeregister(t.comm[0], r0.window).ok());
  ASSERT_TRUE(t.On(1).ok());
  EXPECT_THAT(t.proc[1].cuda->WriteFlag(w0, 4, t.stream[1]).message(), HasSubstr("touches memory of process 0"));
}

TEST(CudaFakeProcesses, ACopyPastTheEndOfAPeersWindowIsCaught) {
  TwoProcesses t;
  // The allocation is larger than the window: the copy stays in the
  // allocation but leaves the registered (mapped) part.
  DevPtr w0 = t.Window(0, 4096, 8192).buf;
  t.Window(1, 4096, 8192);
  ASSERT_TRUE(t.On(1).ok());
  auto src = t.proc[1].cuda->Malloc(8192);
  ASSERT_TRUE(src.ok());
  const Status s = t.proc[1].cuda->Copy2D(static_cast<char*>(w0) + 2048, 4096, *src, 4096, 4096, 1, t.stream[1]);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("4096 bytes at offset 2048 run past the end of rank 0's NCCL window #0 "
                                     "(4096 bytes): the window is too small"));
}

TEST(CudaFakeProcesses, NcclGivesNoPointerForAPeerOutsideTheP2pTeam) {
  FakeGpuConfig no_p2p;
  no_p2p.peer_access = false;
  FakeGpu gpu(no_p2p);
  FakeProcess proc[2] = {gpu.NewProcess(), gpu.NewProcess()};
  auto id = proc[0].nccl->GetUniqueId();
  ASSERT_TRUE(id.ok());
  std::unique_ptr<PeerMemory> peers[2];
  DevPtr buf[2] = {nullptr, nullptr};
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(proc[r].cuda->SetDevice(r).ok());
    auto c = proc[r].nccl->CommInitRank(2, *id, r, {});
    ASSERT_TRUE(c.ok());
    peers[r] = MakeNcclWindowPeerMemory(*proc[r].nccl, *proc[r].cuda, *c, 2);
    auto b = peers[r]->Allocate(4096);
    ASSERT_TRUE(b.ok()) << b.status().message();
    buf[r] = *b;
  }
  auto ptrs = peers[0]->PeerPointers({buf[0]});
  ASSERT_TRUE(ptrs.ok()) << ptrs.status().message();
  EXPECT_EQ((*ptrs)[0][0], buf[0]);
  EXPECT_EQ((*ptrs)[0][1], nullptr);
  for (int r = 0; r < 2; ++r) EXPECT_TRUE(peers[r]->Free(buf[r]).ok());
}

}  // namespace
}  // namespace cuda
}  // namespace braid
