// The DP step schedule, by hand: a two-layer step of 10 ns forwards and
// 20 ns backwards whose collectives take one ns per byte.
#include <gtest/gtest.h>

#include <limits>

#include "braid/dp_schedule.h"

namespace braid {
namespace {

DpStepInput TwoLayers(DpSchedule schedule) {
  DpStepInput in;
  in.layers = 2;
  in.forward_ns = 10;
  in.backward_ns = 20;
  in.gradients = {{"fc2", 0.5, 1, 5}, {"fc1", 1.0, 1, 5}};
  in.schedule = schedule;
  in.bucket_params = 2;  // one layer a bucket
  in.grad_collective_ns = [](int64_t bytes) { return double(bytes); };
  in.gather_collective_ns = [](int64_t bytes) { return double(bytes); };
  return in;
}

DpStepFigures Must(const DpStepInput& in) {
  Result<DpStepFigures> f = ScheduleDpStep(in);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? *f : DpStepFigures{};
}

TEST(DpSchedule, SerialReducesEverythingAfterTheBackward) {
  const DpStepFigures f = Must(TwoLayers(DpSchedule::kSerial));
  EXPECT_DOUBLE_EQ(f.compute_ns, 60);
  EXPECT_DOUBLE_EQ(f.step_ns, 80);  // 60 of compute, then one 20-byte collective
  EXPECT_EQ(f.grad_collectives, 1);
  EXPECT_DOUBLE_EQ(f.dp_exposed_ns, 20);
  EXPECT_DOUBLE_EQ(f.tail_ns, 20);
}

TEST(DpSchedule, ABucketRunsBesideTheNextLayersBackwardAndOnlyTheLastIsATail) {
  DpStepFigures f = Must(TwoLayers(DpSchedule::kBucketed));
  // Layer 2's bucket closes at 40 (its backward's end) and runs 40..50
  // under layer 1's backward; layer 1's closes at 60 and runs 60..70.
  ASSERT_EQ(f.spans.size(), 2u);
  EXPECT_DOUBLE_EQ(f.spans[0].start_ns, 40);
  EXPECT_DOUBLE_EQ(f.spans[0].end_ns, 50);
  EXPECT_DOUBLE_EQ(f.step_ns, 70);
  EXPECT_DOUBLE_EQ(f.tail_ns, 10);
  // Compute beside a collective runs at half rate: 5 of layer 1's 20 ns
  // are done during 40..50, the rest by 65.
  DpStepInput slow = TwoLayers(DpSchedule::kBucketed);
  slow.stretch = 2;
  f = Must(slow);
  EXPECT_DOUBLE_EQ(f.step_ns, 75);
  EXPECT_DOUBLE_EQ(f.dp_exposed_ns, 15);
  // One big bucket is the serial schedule.
  slow.stretch = 1;
  slow.bucket_params = 1000;
  EXPECT_DOUBLE_EQ(Must(slow).step_ns, 80);
  // A bucket per gradient: fc2's of layer 2 is queued halfway through its backward.
  slow.bucket_params = 1;
  f = Must(slow);
  EXPECT_EQ(f.grad_collectives, 4);
  EXPECT_DOUBLE_EQ(f.spans[0].queued_ns, 30);
  EXPECT_DOUBLE_EQ(f.step_ns, 65);
}

TEST(DpSchedule, DecomposedLayersLeaveNoCollectiveButTheirExtraTime) {
  DpStepInput in = TwoLayers(DpSchedule::kDecomposed);
  in.decomposed_extra_ns = 3;
  DpStepFigures f = Must(in);
  EXPECT_EQ(f.grad_collectives, 0);
  EXPECT_DOUBLE_EQ(f.step_ns, 66);
  EXPECT_DOUBLE_EQ(f.tail_ns, 0);
  // Only layer 1 (the backward's last) decomposed: layer 2's bucket runs under it.
  in.decomposed_layers = 1;
  f = Must(in);
  EXPECT_EQ(f.grad_collectives, 1);
  EXPECT_DOUBLE_EQ(f.step_ns, 63);
}

TEST(DpSchedule, GathersArePrefetchedOrWaitedFor) {
  DpStepInput in = TwoLayers(DpSchedule::kBucketed);
  in.gradients.clear();
  in.gather_bytes = 4;
  // Prefetch 1: both gathers queued at the start (0..4, 4..8); layer 1's
  // forward waits 4 ns, layer 2's finds its weights there.
  DpStepFigures f = Must(in);
  EXPECT_EQ(f.gather_collectives, 2);
  EXPECT_DOUBLE_EQ(f.step_ns, 64);
  // ZeRO-3 gathers again before each backward: queued one segment ahead, hidden.
  in.gather_in_backward = true;
  f = Must(in);
  EXPECT_EQ(f.gather_collectives, 4);
  EXPECT_DOUBLE_EQ(f.step_ns, 64);
  // Serial: each gather right before its segment, all exposed.
  in.schedule = DpSchedule::kSerial;
  EXPECT_DOUBLE_EQ(Must(in).step_ns, 76);
}

TEST(DpSchedule, DecomposedLayersAlsoTakeTheirForwardGathersIntoTheFprop) {
  DpStepInput in = TwoLayers(DpSchedule::kDecomposed);
  in.gradients.clear();
  in.gather_bytes = 4;
  in.decomposed_gather_extra_ns = 1;
  in.decomposed_layers = 1;
  // Layer 1's gather is decomposed (its forward 11 ns, no wait); layer 2's
  // is queued at the start (prefetch 1) and lands at 4, long before 11.
  DpStepFigures f = Must(in);
  EXPECT_EQ(f.gather_collectives, 1);
  EXPECT_DOUBLE_EQ(f.step_ns, 61);
  // Bucketed, the first gather is exposed: 4 ns before anything computes.
  in.schedule = DpSchedule::kBucketed;
  EXPECT_DOUBLE_EQ(Must(in).step_ns, 64);
}

TEST(DpSchedule, BadFiguresAreRefusedNamingTheField) {
  DpStepInput in = TwoLayers(DpSchedule::kBucketed);
  in.bucket_params = 0;
  EXPECT_NE(ScheduleDpStep(in).status().message().find("bucket_params"), std::string::npos);
  in = TwoLayers(DpSchedule::kBucketed);
  in.stretch = 0.5;
  EXPECT_NE(ScheduleDpStep(in).status().message().find("stretch"), std::string::npos);
  in = TwoLayers(DpSchedule::kBucketed);
  in.gradients[0].grad_ready = 0;
  EXPECT_NE(ScheduleDpStep(in).status().message().find("grad_ready"), std::string::npos);
  in = TwoLayers(DpSchedule::kBucketed);
  in.forward_ns = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(ScheduleDpStep(in).ok());
  EXPECT_FALSE(ParseDpSchedule("overlapped").ok());
  EXPECT_EQ(*ParseDpSchedule("decomposed"), DpSchedule::kDecomposed);
}

}  // namespace
}  // namespace braid
