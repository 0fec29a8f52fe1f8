#include "braid/marker_pairer.h"

#include <gtest/gtest.h>

#include <string>

#include "record_builders.h"

namespace braid {
namespace marker_pairer_test {
namespace {

using namespace cupti_test;  // NOLINT(google-build-using-namespace)

ConversionContext Ctx() {
  ConversionContext ctx;
  ctx.rank = 2;
  ctx.iteration = 4;
  ctx.origin_ns = 1000;
  return ctx;
}

TEST(CuptiMarkers, StartAndEndPairByIdIntoOneEvent) {
  MarkerPairer pairer;
  LaneTable lanes;
  const ConversionContext ctx = Ctx();
  // Two nested ranges on one thread: outer (id 1) around inner (id 2).
  EXPECT_FALSE(pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 1100, "step 3"), ctx, lanes));
  EXPECT_FALSE(pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 1200, "gemm 3.0"), ctx, lanes));
  EXPECT_EQ(pairer.open(), 2u);

  std::optional<Event> inner = pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 1500, nullptr), ctx, lanes);
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->iteration, 4);
  EXPECT_EQ(inner->rank, 2);
  EXPECT_EQ(inner->lane, 0);
  EXPECT_EQ(inner->kind, EventKind::kMarker);
  EXPECT_EQ(inner->name, "gemm 3.0");
  EXPECT_EQ(inner->start_ns, 200);
  EXPECT_EQ(inner->end_ns, 500);
  EXPECT_EQ(inner->bytes, 0);
  EXPECT_EQ(inner->flops, 0.0);
  EXPECT_EQ(inner->chunk, -1);
  EXPECT_EQ(inner->step, -1);
  EXPECT_EQ(inner->peer, -1);
  EXPECT_EQ(inner->correlation, -1);

  std::optional<Event> outer = pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 1900, nullptr), ctx, lanes);
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->name, "step 3");
  EXPECT_EQ(outer->start_ns, 100);
  EXPECT_EQ(outer->end_ns, 900);
  EXPECT_EQ(pairer.open(), 0u);
  EXPECT_EQ(pairer.unpaired(), 0u);
  EXPECT_EQ(lanes.names(), std::vector<std::string>{"host thread 7"});
}

TEST(CuptiMarkers, RangesOnTwoThreadsGetTwoLanes) {
  MarkerPairer pairer;
  LaneTable lanes;
  const ConversionContext ctx = Ctx();
  pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 1100, "a", /*thread=*/7), ctx, lanes);
  pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 1100, "b", /*thread=*/8), ctx, lanes);
  // The end record's own object is not consulted: the start's lane is kept.
  auto b = pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 1300, nullptr, /*thread=*/7), ctx, lanes);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->lane, 1);
  EXPECT_EQ(lanes.names(), (std::vector<std::string>{"host thread 7", "host thread 8"}));
}

TEST(CuptiMarkers, NameCopiedAtStart) {
  MarkerPairer pairer;
  LaneTable lanes;
  std::string name = "all-gather 0";
  pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 1100, name.c_str()), Ctx(), lanes);
  name.assign(name.size(), '#');  // the start's buffer went back to CUPTI
  auto e = pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 1200, nullptr), Ctx(), lanes);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "all-gather 0");
}

TEST(CuptiMarkers, DomainPrefixesTheName) {
  MarkerPairer pairer;
  LaneTable lanes;
  auto e =
      pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 9, 1300, "ncclAllReduce", 7, "NCCL"), Ctx(), lanes);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "NCCL:ncclAllReduce");
}

TEST(CuptiMarkers, InstantaneousMarkerIsZeroLength) {
  MarkerPairer pairer;
  LaneTable lanes;
  auto e = pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 3, 1300, "checkpoint"), Ctx(), lanes);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, EventKind::kMarker);
  EXPECT_EQ(e->name, "checkpoint");
  EXPECT_EQ(e->start_ns, 300);
  EXPECT_EQ(e->end_ns, 300);
  EXPECT_EQ(e->rank, 2);
  EXPECT_EQ(e->iteration, 4);
  EXPECT_EQ(pairer.open(), 0u);
}

TEST(CuptiMarkers, EndWithoutStartIsCountedNotEmitted) {
  MarkerPairer pairer;
  LaneTable lanes;
  EXPECT_FALSE(pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 4, 1300, nullptr), Ctx(), lanes));
  EXPECT_EQ(pairer.unpaired(), 1u);
  EXPECT_EQ(lanes.size(), 0u);
}

TEST(CuptiMarkers, ReusedStartIdSupersedesTheOldStart) {
  MarkerPairer pairer;
  LaneTable lanes;
  pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 4, 1100, "old"), Ctx(), lanes);
  pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 4, 1200, "new"), Ctx(), lanes);
  EXPECT_EQ(pairer.unpaired(), 1u);
  auto e = pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 4, 1300, nullptr), Ctx(), lanes);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "new");
  EXPECT_EQ(e->start_ns, 200);
}

TEST(CuptiMarkers, SyncObjectAndUntimedMarkersAreIgnored) {
  MarkerPairer pairer;
  LaneTable lanes;
  EXPECT_FALSE(pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, 5, 1300, "lock"), Ctx(), lanes));
  EXPECT_FALSE(pairer.Add(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 6, 0, "untimed"), Ctx(), lanes));
  EXPECT_EQ(pairer.ignored(), 2u);
  EXPECT_EQ(pairer.open(), 0u);
}

TEST(CuptiMarkers, StreamMarkerLandsOnItsDeviceStreamLane) {
  MarkerPairer pairer;
  LaneTable lanes;
  auto r = Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1, 1300, "flag");
  r.objectKind = CUPTI_ACTIVITY_OBJECT_STREAM;
  r.objectId.dcs.deviceId = 3;
  r.objectId.dcs.contextId = 1;
  r.objectId.dcs.streamId = 14;
  auto e = pairer.Add(r, Ctx(), lanes);
  ASSERT_TRUE(e);
  EXPECT_EQ(lanes.names()[e->lane], "dev 3 stream 14");
  r.objectKind = CUPTI_ACTIVITY_OBJECT_DEVICE;
  e = pairer.Add(r, Ctx(), lanes);
  ASSERT_TRUE(e);
  EXPECT_EQ(lanes.names()[e->lane], "dev 3 no stream");
}

}  // namespace
}  // namespace marker_pairer_test
}  // namespace braid
