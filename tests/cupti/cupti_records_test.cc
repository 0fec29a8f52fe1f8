#include "braid/cupti_records.h"

#include <gtest/gtest.h>

#include <string>

#include "record_builders.h"

namespace braid {
namespace {

using namespace cupti_test;  // NOLINT(google-build-using-namespace)

ConversionContext Ctx() {
  ConversionContext ctx;
  ctx.rank = 3;
  ctx.iteration = 5;
  ctx.origin_ns = 1'000'000;
  return ctx;
}

TEST(CuptiRecords, KernelBecomesComputeEventWithEveryField) {
  LaneTable lanes;
  const auto r = Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 0, 7, 1'000'500, 1'002'000, 42);
  const Event e = FromKernel(r, Ctx(), lanes);
  EXPECT_EQ(e.iteration, 5);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.lane, 0);
  EXPECT_EQ(e.kind, EventKind::kCompute);
  EXPECT_EQ(e.name, "sm90_xmma_gemm_bf16bf16_bf16f32");
  EXPECT_EQ(e.start_ns, 500);
  EXPECT_EQ(e.end_ns, 2000);
  EXPECT_EQ(e.bytes, 0);
  EXPECT_EQ(e.flops, 0.0);
  EXPECT_EQ(e.chunk, -1);
  EXPECT_EQ(e.step, -1);
  EXPECT_EQ(e.peer, -1);
  EXPECT_EQ(e.correlation, 42);
  ASSERT_EQ(lanes.names().size(), 1u);
  EXPECT_EQ(lanes.names()[0], "dev 0 stream 7");
}

TEST(CuptiRecords, NcclKernelNamesAreComm) {
  for (const char* name : {"ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL",
                           "_Z29ncclDevKernel_AllReduce_Sum_f32_RING_LLP24ncclDevKernelArgsStorageILm4096EE",
                           "_Z24ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_tP11ncclDevComm", "ncclSendRecvKernel"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(IsNcclKernelName(name));
    LaneTable lanes;
    EXPECT_EQ(FromKernel(Kernel(name, 0, 1, 10, 20, 1), Ctx(), lanes).kind, EventKind::kComm);
  }
}

TEST(CuptiRecords, OtherKernelNamesAreCompute) {
  for (const char* name :
       {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
        "void cutlass::Kernel2<cutlass_80_tensorop_gemm>(Params)", "my_nccl_helper", "NcclKernel", "vectorAdd", ""}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(IsNcclKernelName(name));
    LaneTable lanes;
    EXPECT_EQ(FromKernel(Kernel(name, 0, 1, 10, 20, 1), Ctx(), lanes).kind, EventKind::kCompute);
  }
}

TEST(CuptiRecords, ContextPatternsMakeOwnCopyKernelsComm) {
  ConversionContext ctx = Ctx();
  ctx.comm_kernel_patterns = {"", "braid_tile_push"};
  LaneTable lanes;
  EXPECT_EQ(FromKernel(Kernel("void braid_tile_push<bf16>(...)", 0, 1, 10, 20, 1), ctx, lanes).kind, EventKind::kComm);
  // An empty pattern matches nothing.
  EXPECT_EQ(FromKernel(Kernel("gemm", 0, 1, 10, 20, 1), ctx, lanes).kind, EventKind::kCompute);
}

TEST(CuptiRecords, KernelWithoutNameIsNamedKernel) {
  LaneTable lanes;
  EXPECT_EQ(FromKernel(Kernel(nullptr, 0, 1, 10, 20, 1), Ctx(), lanes).name, "kernel");
}

TEST(CuptiRecords, KernelNameIsCopiedNotBorrowed) {
  std::string owned = "ncclDevKernel_ReduceScatter";
  LaneTable lanes;
  const Event e = FromKernel(Kernel(owned.c_str(), 0, 1, 10, 20, 1), Ctx(), lanes);
  owned.assign(owned.size(), 'x');  // CUPTI reuses the memory after the buffer goes back
  EXPECT_EQ(e.name, "ncclDevKernel_ReduceScatter");
}

TEST(CuptiRecords, TimestampsAreRelativeToOrigin) {
  ConversionContext ctx = Ctx();
  ctx.origin_ns = 0;
  LaneTable lanes;
  Event e = FromKernel(Kernel("k", 0, 1, 1'700'000'000'000'000'123, 1'700'000'000'000'000'456, 1), ctx, lanes);
  EXPECT_EQ(e.start_ns, 1'700'000'000'000'000'123);
  ctx.origin_ns = 1'700'000'000'000'000'000;
  e = FromKernel(Kernel("k", 0, 1, 1'700'000'000'000'000'123, 1'700'000'000'000'000'456, 1), ctx, lanes);
  EXPECT_EQ(e.start_ns, 123);
  EXPECT_EQ(e.end_ns, 456);
  // A record older than the origin comes out negative, not wrapped.
  e = FromKernel(Kernel("k", 0, 1, 1'699'999'999'999'999'900, 1'700'000'000'000'000'010, 1), ctx, lanes);
  EXPECT_EQ(e.start_ns, -100);
}

TEST(CuptiRecords, MemcpyBecomesCopyWithBytes) {
  LaneTable lanes;
  const Event e =
      FromMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1 << 20, 1, 13, 1'003'000, 1'004'000, 77), Ctx(), lanes);
  EXPECT_EQ(e.iteration, 5);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.lane, 0);
  EXPECT_EQ(e.kind, EventKind::kCopy);
  EXPECT_EQ(e.name, "memcpy HtoD");
  EXPECT_EQ(e.start_ns, 3000);
  EXPECT_EQ(e.end_ns, 4000);
  EXPECT_EQ(e.bytes, 1 << 20);
  EXPECT_EQ(e.flops, 0.0);
  EXPECT_EQ(e.chunk, -1);
  EXPECT_EQ(e.step, -1);
  EXPECT_EQ(e.peer, -1);
  EXPECT_EQ(e.correlation, 77);
  EXPECT_EQ(lanes.names()[0], "dev 1 stream 13");
}

TEST(CuptiRecords, MemcpyKindsAreNamed) {
  LaneTable lanes;
  EXPECT_EQ(FromMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 8, 0, 1, 10, 20, 1), Ctx(), lanes).name, "memcpy DtoH");
  EXPECT_EQ(FromMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 8, 0, 1, 10, 20, 1), Ctx(), lanes).name, "memcpy DtoD");
  EXPECT_EQ(MemcpyKindName(200), "memcpy");
}

TEST(CuptiRecords, MemcpyOfPeerKindIsCommWithUnknownPeer) {
  LaneTable lanes;
  const Event e = FromMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, 4096, 0, 1, 10, 20, 1), Ctx(), lanes);
  EXPECT_EQ(e.kind, EventKind::kComm);
  EXPECT_EQ(e.name, "memcpy PtoP");
  EXPECT_EQ(e.peer, -1);
}

TEST(CuptiRecords, PeerCopyIsCommWithDestinationPeer) {
  LaneTable lanes;
  const Event e =
      FromMemcpyPtoP(PeerCopy(64 << 20, 2, 21, /*src=*/2, /*dst=*/5, 1'010'000, 1'020'000, 9), Ctx(), lanes);
  EXPECT_EQ(e.iteration, 5);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.lane, 0);
  EXPECT_EQ(e.kind, EventKind::kComm);
  EXPECT_EQ(e.name, "memcpy PtoP");
  EXPECT_EQ(e.start_ns, 10'000);
  EXPECT_EQ(e.end_ns, 20'000);
  EXPECT_EQ(e.bytes, 64 << 20);
  EXPECT_EQ(e.flops, 0.0);
  EXPECT_EQ(e.chunk, -1);
  EXPECT_EQ(e.step, -1);
  EXPECT_EQ(e.peer, 5);
  EXPECT_EQ(e.correlation, 9);
  EXPECT_EQ(lanes.names()[0], "dev 2 stream 21");
}

TEST(CuptiRecords, PeerCopyPulledToRunningDeviceHasSourcePeer) {
  LaneTable lanes;
  const Event e = FromMemcpyPtoP(PeerCopy(1024, 4, 1, /*src=*/6, /*dst=*/4, 10, 20, 1), Ctx(), lanes);
  EXPECT_EQ(e.kind, EventKind::kComm);
  EXPECT_EQ(e.peer, 6);
}

TEST(CuptiRecords, PeerCopyWithinOneDeviceIsCopy) {
  LaneTable lanes;
  auto r = PeerCopy(1024, 4, 1, 4, 4, 10, 20, 1);
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  const Event e = FromMemcpyPtoP(r, Ctx(), lanes);
  EXPECT_EQ(e.kind, EventKind::kCopy);
  EXPECT_EQ(e.name, "memcpy DtoD");
  EXPECT_EQ(e.peer, -1);
}

TEST(CuptiRecords, DeviceRankMapsRankAndPeer) {
  ConversionContext ctx = Ctx();
  ctx.device_rank = {10, 11, 12};
  LaneTable lanes;
  Event e = FromMemcpyPtoP(PeerCopy(1, 1, 0, 1, 2, 10, 20, 1), ctx, lanes);
  EXPECT_EQ(e.rank, 11);
  EXPECT_EQ(e.peer, 12);
  // Devices the map does not cover: the context's rank, the device ordinal.
  e = FromMemcpyPtoP(PeerCopy(1, 7, 0, 7, 9, 10, 20, 1), ctx, lanes);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.peer, 9);
}

TEST(CuptiRecords, MemsetBecomesCopyWithBytes) {
  LaneTable lanes;
  const Event e = FromMemset(Memset(4096, 0, 3, 1'000'100, 1'000'200, 11), Ctx(), lanes);
  EXPECT_EQ(e.iteration, 5);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.lane, 0);
  EXPECT_EQ(e.kind, EventKind::kCopy);
  EXPECT_EQ(e.name, "memset");
  EXPECT_EQ(e.start_ns, 100);
  EXPECT_EQ(e.end_ns, 200);
  EXPECT_EQ(e.bytes, 4096);
  EXPECT_EQ(e.flops, 0.0);
  EXPECT_EQ(e.chunk, -1);
  EXPECT_EQ(e.step, -1);
  EXPECT_EQ(e.peer, -1);
  EXPECT_EQ(e.correlation, 11);
}

TEST(CuptiRecords, SyncBecomesSyncEventOnItsStreamLane) {
  LaneTable lanes;
  const Event e = FromSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 7, 1'000'010, 1'000'090, 55),
                           /*device=*/0, Ctx(), lanes);
  EXPECT_EQ(e.iteration, 5);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.lane, 0);
  EXPECT_EQ(e.kind, EventKind::kSync);
  EXPECT_EQ(e.name, "stream synchronize");
  EXPECT_EQ(e.start_ns, 10);
  EXPECT_EQ(e.end_ns, 90);
  EXPECT_EQ(e.bytes, 0);
  EXPECT_EQ(e.flops, 0.0);
  EXPECT_EQ(e.chunk, -1);
  EXPECT_EQ(e.step, -1);
  EXPECT_EQ(e.peer, -1);
  EXPECT_EQ(e.correlation, 55);
  EXPECT_EQ(lanes.names()[0], "dev 0 stream 7");
}

TEST(CuptiRecords, SyncWithoutStreamOrDeviceGetsItsOwnLane) {
  LaneTable lanes;
  Event e =
      FromSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 1, kNoStream, 10, 20, 1), 2, Ctx(), lanes);
  EXPECT_EQ(e.name, "context synchronize");
  EXPECT_EQ(lanes.names()[e.lane], "dev 2 no stream");
  e = FromSync(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 4, 3, 10, 20, 1), kNoDevice, Ctx(), lanes);
  EXPECT_EQ(e.name, "event synchronize");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(lanes.names()[e.lane], "ctx 4 stream 3");
  EXPECT_EQ(SyncTypeName(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT), "stream wait event");
  EXPECT_EQ(SyncTypeName(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN), "synchronize");
}

TEST(CuptiLanes, OnePerDeviceStreamInFirstSeenOrder) {
  LaneTable lanes;
  EXPECT_EQ(lanes.StreamLane(1, 20), 0);
  EXPECT_EQ(lanes.StreamLane(0, 7), 1);
  EXPECT_EQ(lanes.StreamLane(1, 20), 0);
  EXPECT_EQ(lanes.StreamLane(0, 13), 2);
  EXPECT_EQ(lanes.StreamLane(1, 7), 3);  // same stream id on another device: another lane
  EXPECT_EQ(lanes.LaneFor({LaneKey::Where::kHostThread, 7, 0}), 4);
  EXPECT_EQ(lanes.LaneFor({LaneKey::Where::kContextStream, 1, 20}), 5);
  EXPECT_EQ(lanes.size(), 6u);
  EXPECT_EQ(lanes.names(), (std::vector<std::string>{"dev 1 stream 20", "dev 0 stream 7", "dev 0 stream 13",
                                                     "dev 1 stream 7", "host thread 7", "ctx 1 stream 20"}));
}

TEST(CuptiLanes, EventsShareTheLaneOfTheirStream) {
  LaneTable lanes;
  const ConversionContext ctx = Ctx();
  const Event a = FromKernel(Kernel("gemm", 0, 7, 10, 20, 1), ctx, lanes);
  const Event b = FromKernel(Kernel("ncclDevKernel_AllGather", 0, 9, 10, 20, 2), ctx, lanes);
  const Event c = FromMemcpy(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 1, 0, 7, 10, 20, 3), ctx, lanes);
  const Event d = FromMemset(Memset(1, 0, 9, 10, 20, 4), ctx, lanes);
  EXPECT_EQ(a.lane, 0);
  EXPECT_EQ(b.lane, 1);
  EXPECT_EQ(c.lane, 0);
  EXPECT_EQ(d.lane, 1);
}

}  // namespace
}  // namespace braid
