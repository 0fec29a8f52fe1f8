// The GEMM core's stamps per group of tiles as events (tile_group_events.h):
// placed on the tracer's clock by the launch's own kernel record, clipped to
// it, named by group, and none where a stamp or record is missing.
#include "braid/tile_group_events.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/cuda_step_events.h"
#include "braid/step_event.h"
#include "cuda_test_util.h"

namespace braid {
namespace {

using cuda::AddTileGroupEvents;
using cuda::TileGroupReading;
using testing::CudaPlan;

// The fused step's id on every rank of a fused plan (its one step).
int FusedStep(const Plan& plan, int rank) {
  for (const Step& s : plan.ranks[size_t(rank)].steps) {
    if (s.kind == StepKind::kFused) return s.id;
  }
  return -1;
}

Event KernelRecord(const std::string& name, int iteration, int rank, int step, int64_t start, int64_t end) {
  Event e;
  e.name = name;
  e.start_ns = start;
  e.end_ns = end;
  e.correlation = int64_t(cuda::StepCorrelation(iteration, rank, step));
  return e;
}

TileGroupReading Reading(int rank, int step, int group, uint64_t first, uint64_t last, bool rs = false) {
  TileGroupReading r;
  r.rank = rank;
  r.step = step;
  r.group = group;
  r.reduce_scatter = rs;
  r.source = rs ? -1 : (rank + group) % 4;
  r.first_start_ns = first;
  r.last_end_ns = last;
  return r;
}

TEST(TileGroupEvents, StampsArePlacedByTheirKernelsRecordWithEqualGapsAtBothEnds) {
  const Plan plan = CudaPlan(Op::kAgGemm, 512, 256, 64, 4, Algorithm::kFused);
  const int step = FusedStep(plan, 1);
  ASSERT_GE(step, 0);
  // The kernel ran 1,000 ns on the tracer's clock; its tiles 800 ns on the GPU's.
  const std::vector<Event> records = {
      KernelRecord("_ZN5braid4cuda4gemm14GemmSm90KernelILi0EEEvv", 0, 1, step, 1000, 2000)};
  const uint64_t t0 = 5'000'000'000'000;
  std::vector<Event> events;
  AddTileGroupEvents(plan, records, {Reading(1, step, 0, t0 + 100, t0 + 500), Reading(1, step, 1, t0 + 400, t0 + 900)},
                     events);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].start_ns, 1100);
  EXPECT_EQ(events[0].end_ns, 1500);
  EXPECT_EQ(events[1].start_ns, 1400);
  EXPECT_EQ(events[1].end_ns, 1900);
  const Step& s = plan.ranks[1].steps[size_t(step)];
  EXPECT_EQ(events[0].name, s.name + "/tiles.s0.r1");
  EXPECT_EQ(events[1].name, s.name + "/tiles.s1.r2");
  for (const Event& e : events) {
    EXPECT_EQ(e.rank, 1);
    EXPECT_EQ(e.lane, s.lane);
    EXPECT_EQ(e.kind, EventKind::kCompute);
    EXPECT_EQ(e.flops, 0) << "the step's event already counts its flops";
    EXPECT_TRUE(cuda::IsTileGroupEvent(e));
  }
  EXPECT_FALSE(cuda::IsTileGroupEvent(EventOfStep(s, 0, 1, 0, 0)));
}

TEST(TileGroupEvents, StampsWiderThanTheKernelAreClippedToIt) {
  const Plan plan = CudaPlan(Op::kGemmRs, 512, 256, 64, 4, Algorithm::kFused);
  const int step = FusedStep(plan, 0);
  const std::vector<Event> records = {KernelRecord("GemmSm80Kernel", 0, 0, step, 1000, 1100)};
  std::vector<Event> events;
  AddTileGroupEvents(plan, records, {Reading(0, step, 3, 0, 300, true), Reading(0, step, 2, 50, 60, true)}, events);
  ASSERT_EQ(events.size(), 2u);
  for (const Event& e : events) {
    EXPECT_GE(e.start_ns, 1000);
    EXPECT_LE(e.end_ns, 1100);
    EXPECT_LE(e.start_ns, e.end_ns);
  }
  EXPECT_EQ(events[0].name, plan.ranks[0].steps[size_t(step)].name + "/tiles.to3");
  EXPECT_EQ(events[0].peer, 3);
}

TEST(TileGroupEvents, NoEventWithoutAKernelRecordOrAStampedTile) {
  const Plan plan = CudaPlan(Op::kAgGemm, 512, 256, 64, 4, Algorithm::kFused);
  const int step = FusedStep(plan, 0);
  const uint64_t none = ~uint64_t(0);
  const std::vector<Event> records = {
      KernelRecord("GemmSm90Kernel", 0, 0, step, 1000, 2000),
      KernelRecord("some_other_kernel", 1, 0, step, 3000, 4000),  // iteration 1: no core kernel record
      KernelRecord("GemmSm90Kernel", -1, 0, step, 0, 10),         // a warm-up's: never placed
  };
  std::vector<Event> events = {EventOfStep(plan.ranks[0].steps[size_t(step)], 0, 0, 900, 2000)};
  std::vector<TileGroupReading> readings = {
      Reading(0, step, 0, none, 0),                                     // reset, no tile ran
      Reading(0, step, 1, uint64_t(1) << 62, (uint64_t(1) << 62) + 5),  // past any clock
      Reading(7, step, 0, 1, 2),                                        // no such rank
      Reading(0, 99, 0, 1, 2),                                          // no such step
      Reading(0, step, 2, 10, 20),                                      // the one placed
  };
  TileGroupReading later = Reading(0, step, 0, 10, 20);
  later.iteration = 1;  // its kernel has no record
  readings.push_back(later);
  AddTileGroupEvents(plan, records, readings, events);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(cuda::IsTileGroupEvent(events[0])) << "the step's event first: it starts earlier";
  EXPECT_TRUE(cuda::IsTileGroupEvent(events[1]));
  EXPECT_EQ(events[1].chunk, 2);
}

TEST(TileGroupEvents, TheCoreKernelIsKnownByItsNameMangledOrNot) {
  EXPECT_TRUE(cuda::IsCoreGemmKernel("_ZN5braid4cuda4gemm12_GLOBAL__N_114GemmSm90KernelILi1EEEv14CUtensorMap_stS3_"));
  EXPECT_TRUE(cuda::IsCoreGemmKernel("void braid::cuda::gemm::(anonymous namespace)::GemmSm80Kernel<0>(Sm80Params)"));
  EXPECT_FALSE(cuda::IsCoreGemmKernel("braid_partial_reduce"));
  EXPECT_FALSE(cuda::IsCoreGemmKernel("sm90_xmma_gemm_bf16bf16_bf16f32"));
}

}  // namespace
}  // namespace braid
