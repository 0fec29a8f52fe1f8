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

}  // namespace
}  // namespace braid::cuda
