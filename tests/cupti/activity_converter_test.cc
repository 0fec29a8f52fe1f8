#include "braid/activity_converter.h"

#include <gtest/gtest.h>

#include <string>

#include "record_builders.h"

namespace braid {
namespace {

using namespace cupti_test;  // NOLINT(google-build-using-namespace)

TEST(CuptiConverter, ExternalIdBecomesTheEventCorrelation) {
  ActivityConverter conv;
  // CUPTI writes the external record when the API is called, the kernel's
  // when it completes: either may arrive first.
  conv.AddExternalCorrelation(External(100, 7001, kBraidCorrelationKind));
  conv.AddKernel(Kernel("gemm", 0, 1, 10, 20, 100));
  conv.AddMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 8, 0, 1, 30, 40, 101));
  conv.AddExternalCorrelation(External(101, 7002, kBraidCorrelationKind));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].correlation, 7001);
  EXPECT_EQ(events[1].correlation, 7002);
  EXPECT_EQ(conv.stats().uncorrelated_events, 0u);
}

TEST(CuptiConverter, LaunchesKeepTheGeometryCublasChoseWithBraidIds) {
  ConversionContext ctx;
  ctx.keep_launches = true;
  ActivityConverter conv(ctx);
  auto k = Kernel("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT", 0, 1, 10, 20, 100);
  k.gridX = 2, k.gridY = 64, k.gridZ = 1;
  k.blockX = 384;
  k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1;
  k.maxActiveClusters = 66;
  k.registersPerThread = 168;
  k.staticSharedMemory = 1024, k.dynamicSharedMemory = 200000;
  conv.AddKernel(k);
  conv.AddKernel(Kernel("untimed_reduce", 0, 1, 0, 0, 101));  // no time, but a launch all the same
  conv.AddExternalCorrelation(External(100, 7, kBraidCorrelationKind));
  const std::vector<KernelLaunch> launches = conv.TakeLaunches();
  ASSERT_EQ(launches.size(), 2u);
  const KernelLaunch& l = launches[0];
  EXPECT_EQ(l.name, "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT");
  EXPECT_EQ(l.correlation, 7u);
  EXPECT_EQ(l.grid[0] * l.grid[1] * l.grid[2], 128);
  EXPECT_EQ(l.block[0], 384);
  EXPECT_EQ(l.cluster[0], 2);
  EXPECT_EQ(l.max_active_clusters, 66);
  EXPECT_EQ(l.registers, 168);
  EXPECT_EQ(l.shared_bytes, 201024);
  EXPECT_EQ(launches[1].correlation, 101u);  // no Braid id: CUPTI's stays
  EXPECT_TRUE(conv.TakeLaunches().empty());
  // Off by default: a traced run keeps no second copy of every kernel.
  ActivityConverter plain;
  plain.AddKernel(k);
  EXPECT_TRUE(plain.TakeLaunches().empty());
}

TEST(CuptiConverter, LargeExternalIdsSurvive) {
  ActivityConverter conv;
  conv.AddExternalCorrelation(External(5, (uint64_t{1} << 40) + 3, kBraidCorrelationKind));
  conv.AddKernel(Kernel("gemm", 0, 1, 10, 20, 5));
  EXPECT_EQ(conv.TakeEvents()[0].correlation, (int64_t{1} << 40) + 3);
}

TEST(CuptiConverter, OtherToolsExternalIdsAreIgnored) {
  ActivityConverter conv;
  conv.AddExternalCorrelation(External(100, 55, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0));
  conv.AddKernel(Kernel("gemm", 0, 1, 10, 20, 100));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].correlation, 100);  // CUPTI's own id stays
  EXPECT_EQ(conv.stats().ignored_records, 1u);
  EXPECT_EQ(conv.stats().uncorrelated_events, 1u);
}

TEST(CuptiConverter, UntaggedWorkKeepsCuptiIdAndIsCounted) {
  ActivityConverter conv;
  conv.AddExternalCorrelation(External(1, 900, kBraidCorrelationKind));
  conv.AddKernel(Kernel("tagged", 0, 1, 10, 20, 1));
  conv.AddKernel(Kernel("untagged", 0, 1, 30, 40, 2));
  conv.AddMarker(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1, 50, "m"));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].correlation, 900);
  EXPECT_EQ(events[1].correlation, 2);
  EXPECT_EQ(events[2].correlation, -1);  // markers have no CUPTI id
  EXPECT_EQ(conv.stats().uncorrelated_events, 1u);
}

TEST(CuptiConverter, MappingsOutliveTakeEvents) {
  ActivityConverter conv;
  conv.AddExternalCorrelation(External(3, 33, kBraidCorrelationKind));
  EXPECT_TRUE(conv.TakeEvents().empty());
  conv.AddKernel(Kernel("late", 0, 1, 10, 20, 3));
  EXPECT_EQ(conv.TakeEvents()[0].correlation, 33);
}

TEST(CuptiConverter, UntimedRecordsAreSkippedAndCounted) {
  ActivityConverter conv;
  conv.AddKernel(Kernel("k", 0, 1, 0, 0, 1));
  conv.AddMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 0, 1, 0, 0, 2));
  conv.AddMemcpyPtoP(PeerCopy(8, 0, 1, 0, 1, 0, 0, 3));
  conv.AddMemset(Memset(8, 0, 1, 0, 0, 4));
  conv.AddSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 1, 0, 0, 5));
  conv.AddKernel(Kernel("timed", 0, 1, 0, 10, 6));  // start 0 alone is a real time
  EXPECT_EQ(conv.TakeEvents().size(), 1u);
  const ActivityStats s = conv.stats();
  EXPECT_EQ(s.records, 6u);
  EXPECT_EQ(s.untimed_records, 5u);
  EXPECT_EQ(s.events, 1u);
}

TEST(CuptiConverter, SyncTakesTheDeviceOfItsContext) {
  ActivityConverter conv;
  conv.AddKernel(Kernel("k", /*device=*/3, /*stream=*/7, 10, 20, 1, /*context=*/42));
  conv.AddSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 42, 7, 20, 30, 2));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].kind, EventKind::kSync);
  EXPECT_EQ(events[1].lane, events[0].lane);
  EXPECT_EQ(conv.lane_names(), std::vector<std::string>{"dev 3 stream 7"});
}

TEST(CuptiConverter, SyncWaitsForItsContextDevice) {
  ActivityConverter conv;
  conv.AddSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 42, 7, 20, 30, 2));
  conv.AddContext(Context(42, 1));  // e.g. the CONTEXT record lands in a later buffer
  conv.AddKernel(Kernel("k", 1, 9, 10, 20, 1, 42));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "k");  // deferred syncs come last
  EXPECT_EQ(events[1].kind, EventKind::kSync);
  EXPECT_EQ(conv.lane_names(), (std::vector<std::string>{"dev 1 stream 9", "dev 1 stream 7"}));
}

TEST(CuptiConverter, SyncOfUnknownContextGetsAContextLane) {
  ActivityConverter conv;
  conv.AddSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 8, kNoStream, 20, 30, 2));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(conv.lane_names()[events[0].lane], "ctx 8 no stream");
}

TEST(CuptiConverter, LanesFollowFirstSeenOrderAcrossKinds) {
  ActivityConverter conv;
  conv.AddMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 1, 13, 10, 20, 1));
  conv.AddKernel(Kernel("gemm", 0, 7, 10, 20, 2));
  conv.AddKernel(Kernel("ncclDevKernel_AllGather", 0, 9, 10, 20, 3));
  conv.AddMarker(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 5, "step", 77));
  conv.AddMemset(Memset(8, 1, 13, 30, 40, 4));
  conv.AddKernel(Kernel("gemm", 0, 7, 30, 40, 5));
  conv.AddMemcpyPtoP(PeerCopy(8, 1, 2, 1, 0, 10, 20, 6));
  conv.AddMarker(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 50, nullptr, 77));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(conv.lane_names(), (std::vector<std::string>{"dev 1 stream 13", "dev 0 stream 7", "dev 0 stream 9",
                                                         "host thread 77", "dev 1 stream 2"}));
  const std::vector<int> lanes = {0, 1, 2, 0, 1, 4, 3};
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].lane, lanes[i]) << i;
}

TEST(CuptiConverter, AddDispatchesOnKindAndIgnoresTheRest) {
  ActivityConverter conv;
  const auto k = Kernel("ncclKernel_AllReduce", 0, 1, 10, 20, 1);
  const auto api = DriverApi(1);
  conv.Add(AsActivity(k));
  conv.Add(AsActivity(api));
  auto kernel_kind = Kernel("gemm", 0, 1, 30, 40, 2);
  kernel_kind.kind = CUPTI_ACTIVITY_KIND_KERNEL;  // serialized-kernel records: same layout
  conv.Add(AsActivity(kernel_kind));
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, EventKind::kComm);
  EXPECT_EQ(events[1].kind, EventKind::kCompute);
  EXPECT_EQ(conv.stats().records, 3u);
  EXPECT_EQ(conv.stats().ignored_records, 1u);
}

TEST(CuptiConverter, ContextIsAppliedToEveryEvent) {
  ConversionContext ctx;
  ctx.rank = 6;
  ctx.iteration = 9;
  ctx.origin_ns = 5;
  ActivityConverter conv(ctx);
  conv.AddKernel(Kernel("k", 0, 1, 10, 20, 1));
  conv.AddMarker(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1, 15, "m"));
  for (const Event& e : conv.TakeEvents()) {
    EXPECT_EQ(e.rank, 6);
    EXPECT_EQ(e.iteration, 9);
    EXPECT_EQ(e.start_ns, 5 + (e.kind == EventKind::kMarker ? 5 : 0));
  }
}

TEST(CuptiConverter, StatsCountOpenAndUnpairedMarkers) {
  ActivityConverter conv;
  conv.AddMarker(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 5, "open"));
  conv.AddMarker(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 6, nullptr));
  EXPECT_TRUE(conv.TakeEvents().empty());
  const ActivityStats s = conv.stats();
  EXPECT_EQ(s.open_markers, 1u);
  EXPECT_EQ(s.unpaired_markers, 1u);
  EXPECT_EQ(s.records, 2u);
  EXPECT_EQ(s.events, 0u);
}

}  // namespace
}  // namespace braid
