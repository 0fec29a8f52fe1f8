// DrainBuffer over buffers laid out by hand, record after record, as CUPTI
// fills them. cuptiActivityGetNextRecord only reads the buffer, so this runs
// without a driver or GPU.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "braid/activity_converter.h"
#include "record_builders.h"

namespace braid {
namespace {

using namespace cupti_test;  // NOLINT(google-build-using-namespace)

TEST(CuptiDrain, WalksEveryRecordKindBackToBack) {
  RecordBuffer buf;
  buf.Append(Context(1, 0));
  buf.Append(External(10, 5000, kBraidCorrelationKind));
  buf.Append(DriverApi(10));
  buf.Append(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 90, "step 0"));
  buf.Append(Kernel("sm90_gemm", 0, 7, 100, 200, 10));
  buf.Append(Kernel("ncclDevKernel_ReduceScatter", 0, 9, 150, 300, 11));
  buf.Append(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, 0, 7, 50, 60, 12));
  buf.Append(PeerCopy(1 << 20, 0, 9, 0, 1, 210, 260, 13));
  buf.Append(Memset(512, 0, 7, 70, 80, 14));
  buf.Append(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 7, 200, 310, 15));
  buf.Append(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 320, nullptr));

  ActivityConverter conv;
  ASSERT_TRUE(DrainBuffer(buf.data(), buf.size(), conv).ok());
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(events[0].name, "sm90_gemm");
  EXPECT_EQ(events[0].kind, EventKind::kCompute);
  EXPECT_EQ(events[0].correlation, 5000);
  EXPECT_EQ(events[1].kind, EventKind::kComm);
  EXPECT_EQ(events[1].start_ns, 150);
  EXPECT_EQ(events[1].end_ns, 300);
  EXPECT_EQ(events[2].name, "memcpy HtoD");
  EXPECT_EQ(events[2].bytes, 4096);
  EXPECT_EQ(events[3].kind, EventKind::kComm);
  EXPECT_EQ(events[3].peer, 1);
  EXPECT_EQ(events[3].bytes, 1 << 20);
  EXPECT_EQ(events[4].name, "memset");
  EXPECT_EQ(events[5].kind, EventKind::kSync);
  EXPECT_EQ(events[5].lane, events[0].lane);  // context 1 is device 0
  EXPECT_EQ(events[6].kind, EventKind::kMarker);
  EXPECT_EQ(events[6].name, "step 0");
  EXPECT_EQ(events[6].start_ns, 90);
  EXPECT_EQ(events[6].end_ns, 320);
  EXPECT_EQ(conv.lane_names(), (std::vector<std::string>{"host thread 7", "dev 0 stream 7", "dev 0 stream 9"}));
  const ActivityStats s = conv.stats();
  EXPECT_EQ(s.records, 11u);
  EXPECT_EQ(s.events, 7u);
  EXPECT_EQ(s.ignored_records, 1u);  // the driver API record
  EXPECT_EQ(s.bad_buffers, 0u);
}

TEST(CuptiDrain, RecordSizesAgreeWithCuptiIterator) {
  // For each kind, a second record must start exactly ActivityRecordSize
  // bytes after the first, or DrainBuffer would misread CUPTI's buffers.
  const auto check = [](const auto& record) {
    RecordBuffer buf;
    buf.Append(record);
    const size_t second = buf.Append(record);
    EXPECT_EQ(second, ActivityRecordSize(AsActivity(record).kind));
    uint8_t* base = const_cast<uint8_t*>(buf.data());
    CUpti_Activity* rec = nullptr;
    ASSERT_EQ(cuptiActivityGetNextRecord(base, buf.size(), &rec), CUPTI_SUCCESS);
    ASSERT_EQ(cuptiActivityGetNextRecord(base, buf.size(), &rec), CUPTI_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uint8_t*>(rec) - base, static_cast<ptrdiff_t>(second));
    EXPECT_EQ(cuptiActivityGetNextRecord(base, buf.size(), &rec), CUPTI_ERROR_MAX_LIMIT_REACHED);
  };
  check(Kernel("k", 0, 1, 1, 2, 1));
  check(Memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1, 0, 1, 1, 2, 1));
  check(PeerCopy(1, 0, 1, 0, 1, 1, 2, 1));
  check(Memset(1, 0, 1, 1, 2, 1));
  check(Sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 1, 1, 2, 1));
  check(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1, 1, "m"));
  check(External(1, 1, kBraidCorrelationKind));
  check(Context(1, 0));
  check(DriverApi(1));
  EXPECT_EQ(ActivityRecordSize(CUPTI_ACTIVITY_KIND_NVLINK), 0u);
}

TEST(CuptiDrain, EmptyBufferIsOk) {
  ActivityConverter conv;
  EXPECT_TRUE(DrainBuffer(nullptr, 0, conv).ok());
  RecordBuffer buf;
  buf.Append(Kernel("k", 0, 1, 1, 2, 1));
  EXPECT_TRUE(DrainBuffer(buf.data(), 0, conv).ok());
  EXPECT_EQ(conv.stats().records, 0u);
  EXPECT_EQ(conv.stats().bad_buffers, 0u);
}

TEST(CuptiDrain, NullBufferWithBytesIsBad) {
  ActivityConverter conv;
  const Status s = DrainBuffer(nullptr, 64, conv);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(conv.stats().bad_buffers, 1u);
}

TEST(CuptiDrain, RecordCutOffByValidSizeIsReported) {
  RecordBuffer buf;
  buf.Append(Kernel("whole", 0, 1, 10, 20, 1));
  buf.Append(Kernel("cut", 0, 1, 30, 40, 2));
  ActivityConverter conv;
  const Status s = DrainBuffer(buf.data(), buf.size() - 16, conv);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("hold no whole record"), std::string::npos) << s.message();
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 1u);  // what came before is kept
  EXPECT_EQ(events[0].name, "whole");
  EXPECT_EQ(conv.stats().bad_buffers, 1u);
}

TEST(CuptiDrain, InvalidKindStopsTheWalkWithStatus) {
  RecordBuffer buf;
  buf.Append(Memset(8, 0, 1, 10, 20, 1));
  auto bogus = Memset(8, 0, 1, 10, 20, 2);
  bogus.kind = static_cast<CUpti_ActivityKind>(9999);
  const size_t at = buf.Append(bogus);
  buf.Append(Memset(8, 0, 1, 30, 40, 3));
  ActivityConverter conv;
  const Status s = DrainBuffer(buf.data(), buf.size(), conv);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("offset " + std::to_string(at)), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("CUPTI_ERROR_INVALID_KIND"), std::string::npos) << s.message();
  EXPECT_EQ(conv.TakeEvents().size(), 1u);
  EXPECT_EQ(conv.stats().bad_buffers, 1u);
}

TEST(CuptiDrain, NamesSurviveTheBuffer) {
  auto name = std::make_unique<std::string>("ncclDevKernel_AllGather_RING_LL");
  auto buf = std::make_unique<RecordBuffer>();
  buf->Append(Kernel(name->c_str(), 0, 1, 10, 20, 1));
  ActivityConverter conv;
  ASSERT_TRUE(DrainBuffer(buf->data(), buf->size(), conv).ok());
  buf.reset();   // the buffer goes back to CUPTI ...
  name.reset();  // ... and CUPTI may free the string
  const std::vector<Event> events = conv.TakeEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "ncclDevKernel_AllGather_RING_LL");
}

}  // namespace
}  // namespace braid
