// Hand-built CUPTI activity records for the tests: zero-initialized, then
// the fields a real record would carry. No driver or GPU involved.
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace braid::cupti_test {

template <typename Record>
Record Zeroed() {
  Record r;
  std::memset(&r, 0, sizeof r);
  return r;
}

inline CUpti_ActivityKernel10 Kernel(const char* name, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                                     uint32_t correlation, uint32_t context = 1) {
  auto r = Zeroed<CUpti_ActivityKernel10>();
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.name = name;
  r.deviceId = device;
  r.streamId = stream;
  r.contextId = context;
  r.start = start;
  r.end = end;
  r.correlationId = correlation;
  r.gridX = r.gridY = r.gridZ = 1;
  r.blockX = 128;
  r.blockY = r.blockZ = 1;
  return r;
}

inline CUpti_ActivityMemcpy6 Memcpy(CUpti_ActivityMemcpyKind copy_kind, uint64_t bytes, uint32_t device,
                                    uint32_t stream, uint64_t start, uint64_t end, uint32_t correlation,
                                    uint32_t context = 1) {
  auto r = Zeroed<CUpti_ActivityMemcpy6>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = static_cast<uint8_t>(copy_kind);
  r.bytes = bytes;
  r.deviceId = device;
  r.streamId = stream;
  r.contextId = context;
  r.start = start;
  r.end = end;
  r.correlationId = correlation;
  r.copyCount = 1;
  return r;
}

inline CUpti_ActivityMemcpyPtoP4 PeerCopy(uint64_t bytes, uint32_t device, uint32_t stream, uint32_t src, uint32_t dst,
                                          uint64_t start, uint64_t end, uint32_t correlation, uint32_t context = 1) {
  auto r = Zeroed<CUpti_ActivityMemcpyPtoP4>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  r.bytes = bytes;
  r.deviceId = device;
  r.streamId = stream;
  r.contextId = context;
  r.srcDeviceId = src;
  r.dstDeviceId = dst;
  r.start = start;
  r.end = end;
  r.correlationId = correlation;
  return r;
}

inline CUpti_ActivityMemset4 Memset(uint64_t bytes, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                                    uint32_t correlation, uint32_t context = 1) {
  auto r = Zeroed<CUpti_ActivityMemset4>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.bytes = bytes;
  r.deviceId = device;
  r.streamId = stream;
  r.contextId = context;
  r.start = start;
  r.end = end;
  r.correlationId = correlation;
  return r;
}

inline CUpti_ActivitySynchronization2 Sync(CUpti_ActivitySynchronizationType type, uint32_t context, uint32_t stream,
                                           uint64_t start, uint64_t end, uint32_t correlation) {
  auto r = Zeroed<CUpti_ActivitySynchronization2>();
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = type;
  r.contextId = context;
  r.streamId = stream;
  r.cudaEventId = 0xFFFFFFFFu;
  r.start = start;
  r.end = end;
  r.correlationId = correlation;
  return r;
}

inline CUpti_ActivityMarker2 Marker(CUpti_ActivityFlag flags, uint32_t id, uint64_t timestamp, const char* name,
                                    uint32_t thread = 7, const char* domain = nullptr) {
  auto r = Zeroed<CUpti_ActivityMarker2>();
  r.kind = CUPTI_ACTIVITY_KIND_MARKER;
  r.flags = flags;
  r.id = id;
  r.timestamp = timestamp;
  r.name = name;
  r.domain = domain;
  r.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  r.objectId.pt.processId = 100;
  r.objectId.pt.threadId = thread;
  return r;
}

inline CUpti_ActivityExternalCorrelation External(uint32_t correlation, uint64_t external_id,
                                                  CUpti_ExternalCorrelationKind kind) {
  auto r = Zeroed<CUpti_ActivityExternalCorrelation>();
  r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  r.externalKind = kind;
  r.externalId = external_id;
  r.correlationId = correlation;
  return r;
}

inline CUpti_ActivityContext3 Context(uint32_t context, uint32_t device) {
  auto r = Zeroed<CUpti_ActivityContext3>();
  r.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  r.contextId = context;
  r.deviceId = device;
  return r;
}

inline CUpti_ActivityAPI DriverApi(uint32_t correlation) {
  auto r = Zeroed<CUpti_ActivityAPI>();
  r.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  r.correlationId = correlation;
  r.start = 1;
  r.end = 2;
  return r;
}

// Records laid out back to back, 8-byte aligned, as CUPTI fills a buffer.
class RecordBuffer {
 public:
  template <typename Record>
  size_t Append(const Record& r) {
    static_assert(sizeof(Record) % 8 == 0, "CUPTI records are 8-byte multiples");
    const size_t offset = bytes_;
    bytes_ += sizeof r;
    words_.resize(bytes_ / 8);
    std::memcpy(reinterpret_cast<uint8_t*>(words_.data()) + offset, &r, sizeof r);
    return offset;
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }
  size_t size() const { return bytes_; }

 private:
  std::vector<uint64_t> words_;  // uint64_t storage: 8-byte aligned
  size_t bytes_ = 0;
};

template <typename Record>
const CUpti_Activity& AsActivity(const Record& r) {
  return *reinterpret_cast<const CUpti_Activity*>(&r);
}

}  // namespace braid::cupti_test
