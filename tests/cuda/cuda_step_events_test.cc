// GPU activity records (as the CUPTI converter emits them, with Braid's
// external correlation id) become one event per executed step.
#include <gtest/gtest.h>

#include "braid/cuda_step_events.h"
#include "cuda_test_util.h"

namespace braid::cuda {
namespace {

Event Record(int64_t correlation, int64_t start, int64_t end) {
  Event e;
  e.name = "ncclDevKernel_SendRecv";
  e.lane = 77;  // the converter's (device, stream) lane: replaced by the plan's
  e.start_ns = start;
  e.end_ns = end;
  e.correlation = correlation;
  return e;
}

TEST(CudaStepEvents, CorrelationRoundTrips) {
  for (auto [it, rank, step] : {std::tuple{0, 0, 0}, {-1, 3, 17}, {999, 7, 65535}}) {
    const StepKey k = DecodeCorrelation(StepCorrelation(it, rank, step));
    EXPECT_EQ(k.iteration, it);
    EXPECT_EQ(k.rank, rank);
    EXPECT_EQ(k.step, step);
  }
}

Event HostCallRecord(int64_t correlation, int64_t start, int64_t end, EventKind kind = EventKind::kSync) {
  Event e = Record(correlation, start, end);
  e.kind = kind;
  e.name = kind == EventKind::kSync ? "stream wait event" : "marker";
  return e;
}

// A GEMM's cudaStreamWaitEvent is timed where the host calls it, before the
// GPU gets there: the step spans its kernel, whatever order the records
// come in; a step with nothing but host calls keeps their span.
TEST(CudaStepEvents, HostCallsDoNotStretchAStepThatHasGpuWork) {
  const Plan plan = testing::CudaPlan(Op::kAgGemm, 32, 16, 32, 2, Algorithm::kSerial);
  const Step* gemm = nullptr;
  for (const Step& s : plan.ranks[0].steps) {
    if (s.kind == StepKind::kGemm) gemm = &s;
  }
  ASSERT_NE(gemm, nullptr);
  const int64_t id = int64_t(StepCorrelation(0, 0, gemm->id));
  const std::vector<std::vector<Event>> orders = {
      {HostCallRecord(id, 20, 22), Record(id, 50, 90), HostCallRecord(id, 95, 99, EventKind::kMarker)},
      {Record(id, 50, 90), HostCallRecord(id, 20, 22)},
      {HostCallRecord(id, 20, 22), HostCallRecord(id, 21, 23), Record(id, 50, 70), Record(id, 75, 90)},
  };
  for (const std::vector<Event>& records : orders) {
    const std::vector<Event> events = StepEvents(plan, records);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].start_ns, 50);
    EXPECT_EQ(events[0].end_ns, 90);
    EXPECT_EQ(events[0].kind, EventKind::kCompute);
    EXPECT_EQ(events[0].name, gemm->name);
  }
  const std::vector<Event> only_host = StepEvents(plan, {HostCallRecord(id, 20, 22), HostCallRecord(id, 30, 31)});
  ASSERT_EQ(only_host.size(), 1u);
  EXPECT_EQ(only_host[0].start_ns, 20);
  EXPECT_EQ(only_host[0].end_ns, 31);
}

TEST(CudaStepEvents, AStepsRecordsBecomeOneEventSpanningThem) {
  const Plan plan = testing::CudaPlan(Op::kGemmRs, 32, 16, 32, 2, Algorithm::kRing, 1, 2);
  const Step& send = [&]() -> const Step& {
    for (const Step& s : plan.ranks[1].steps) {
      if (s.kind == StepKind::kSend) return s;
    }
    return plan.ranks[1].steps[0];
  }();
  ASSERT_EQ(send.kind, StepKind::kSend);
  const std::vector<Event> records = {
      Record(int64_t(StepCorrelation(0, 1, send.id)), 100, 150),  // staging copy
      Record(int64_t(StepCorrelation(0, 1, send.id)), 160, 400),  // the NCCL kernel
      Record(int64_t(StepCorrelation(-1, 1, send.id)), 10, 20),   // warm-up
      Record(17, 0, 5),                                           // CUPTI's own id: untagged work
      Record(int64_t(StepCorrelation(0, 9, 0)), 0, 5),            // no such rank
  };
  const std::vector<Event> events = StepEvents(plan, records);
  ASSERT_EQ(events.size(), 1u);
  const Event& e = events[0];
  EXPECT_EQ(e.iteration, 0);
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.lane, send.lane);
  EXPECT_EQ(e.kind, EventKind::kComm);
  EXPECT_EQ(e.name, send.name);
  EXPECT_EQ(e.start_ns, 100);
  EXPECT_EQ(e.end_ns, 400);
  EXPECT_EQ(e.peer, send.peer);
  EXPECT_EQ(e.bytes, send.bytes);
  EXPECT_EQ(e.correlation, send.match);
}

// A fused step on the GEMM core is its GEMM and its communication apart,
// as the sim draws a fused step; the task kernel's one kernel stays one.
TEST(CudaStepEvents, AFusedStepOnTheGemmCoreIsItsGemmAndItsCommunication) {
  const Plan plan = testing::CudaPlan(Op::kAgGemm, 512, 256, 64, 4, Algorithm::kFused);
  const Step& fused = plan.ranks[2].steps[0];
  ASSERT_EQ(fused.kind, StepKind::kFused);
  const int64_t id = int64_t(StepCorrelation(0, 2, fused.id));
  auto on = [&](const char* name, int lane, int64_t start, int64_t end) {
    Event e = Record(id, start, end);
    e.name = name;
    e.lane = lane;  // the converter's lane per stream: 5 the step's lane, 6 its pulls' stream
    return e;
  };
  const std::vector<Event> records = {
      on("memset", 5, 100, 102),
      on("memset", 5, 103, 104),
      on("_ZN5braid4cuda4gemm12_GLOBAL__N_114GemmSm90KernelILi0EEEvv", 5, 110, 400),
      on("memcpy", 6, 90, 150),
      on("memcpy", 6, 150, 260),
      HostCallRecord(id, 10, 20),  // the lane's wait for the pulls: a host call
  };
  const std::vector<Event> events = StepEvents(plan, records);
  ASSERT_EQ(events.size(), 2u);
  const Event& comm = events[0];  // it starts first
  const Event& gemm = events[1];
  EXPECT_EQ(gemm.name, fused.name);
  EXPECT_EQ(gemm.kind, EventKind::kCompute);
  EXPECT_EQ(gemm.start_ns, 110);
  EXPECT_EQ(gemm.end_ns, 400);
  EXPECT_EQ(gemm.lane, fused.lane);
  EXPECT_EQ(gemm.flops, fused.flops);
  EXPECT_EQ(gemm.bytes, 0);
  EXPECT_TRUE(IsStepEvent(gemm));
  EXPECT_EQ(comm.name, fused.name + "/comm");
  EXPECT_EQ(comm.kind, EventKind::kComm);
  EXPECT_EQ(comm.start_ns, 90);
  EXPECT_EQ(comm.end_ns, 260);
  EXPECT_EQ(comm.lane, plan.lanes.size() > 1 ? 1 : fused.lane);
  EXPECT_EQ(comm.bytes, fused.bytes);
  EXPECT_EQ(comm.flops, 0);
  EXPECT_FALSE(IsStepEvent(comm));

  // The task kernel: one kernel for everything, one event.
  const std::vector<Event> task = StepEvents(plan, {on("braid_fused_kernel", 5, 110, 400), on("memcpy", 6, 90, 150)});
  ASSERT_EQ(task.size(), 1u);
  EXPECT_EQ(task[0].start_ns, 90);
  EXPECT_EQ(task[0].end_ns, 400);
  EXPECT_EQ(task[0].kind, EventKind::kCompute);
}

}  // namespace
}  // namespace braid::cuda
