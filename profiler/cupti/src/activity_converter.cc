#include "braid/activity_converter.h"

#include <cstring>
#include <string>
#include <utility>

#include "braid/cupti_check.h"

namespace braid {
namespace {

// Copies the record out of the buffer: no alignment or aliasing assumptions
// about CUPTI's memory, and the copy outlives the buffer.
template <typename Record>
Record Load(const CUpti_Activity& rec) {
  Record r;
  std::memcpy(&r, &rec, sizeof r);
  return r;
}

}  // namespace

void ActivityConverter::Add(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return AddKernel(Load<CUpti_ActivityKernel10>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return AddMemcpy(Load<CUpti_ActivityMemcpy6>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return AddMemcpyPtoP(Load<CUpti_ActivityMemcpyPtoP4>(record));
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return AddMemset(Load<CUpti_ActivityMemset4>(record));
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return AddSync(Load<CUpti_ActivitySynchronization2>(record));
    case CUPTI_ACTIVITY_KIND_MARKER:
      return AddMarker(Load<CUpti_ActivityMarker2>(record));
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return AddExternalCorrelation(Load<CUpti_ActivityExternalCorrelation>(record));
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return AddContext(Load<CUpti_ActivityContext3>(record));
    default:  // RUNTIME / DRIVER API records (enabled for external correlation), others
      ++records_;
      ++ignored_;
      return;
  }
}

void ActivityConverter::AddKernel(const CUpti_ActivityKernel10& r) {
  ++records_;
  NoteContext(r.contextId, r.deviceId);
  if (ctx_.keep_launches) launches_.push_back(LaunchOf(r));
  if (Untimed(r.start, r.end)) {
    ++untimed_;
    return;
  }
  Emit(FromKernel(r, ctx_, lanes_), true);
}

void ActivityConverter::AddMemcpy(const CUpti_ActivityMemcpy6& r) {
  ++records_;
  NoteContext(r.contextId, r.deviceId);
  if (Untimed(r.start, r.end)) {
    ++untimed_;
    return;
  }
  Emit(FromMemcpy(r, ctx_, lanes_), true);
}

void ActivityConverter::AddMemcpyPtoP(const CUpti_ActivityMemcpyPtoP4& r) {
  ++records_;
  NoteContext(r.contextId, r.deviceId);
  if (Untimed(r.start, r.end)) {
    ++untimed_;
    return;
  }
  Emit(FromMemcpyPtoP(r, ctx_, lanes_), true);
}

void ActivityConverter::AddMemset(const CUpti_ActivityMemset4& r) {
  ++records_;
  NoteContext(r.contextId, r.deviceId);
  if (Untimed(r.start, r.end)) {
    ++untimed_;
    return;
  }
  Emit(FromMemset(r, ctx_, lanes_), true);
}

void ActivityConverter::AddSync(const CUpti_ActivitySynchronization2& r) {
  ++records_;
  if (Untimed(r.start, r.end)) {
    ++untimed_;
    return;
  }
  const uint32_t device = DeviceOfContext(r.contextId);
  if (device == kNoDevice) {
    unresolved_syncs_.push_back(r);  // a later record may name the context's device
    return;
  }
  Emit(FromSync(r, device, ctx_, lanes_), true);
}

void ActivityConverter::AddMarker(const CUpti_ActivityMarker2& r) {
  ++records_;
  if (std::optional<Event> e = markers_.Add(r, ctx_, lanes_)) Emit(std::move(*e), false);
}

void ActivityConverter::AddExternalCorrelation(const CUpti_ActivityExternalCorrelation& r) {
  ++records_;
  if (r.externalKind != kBraidCorrelationKind) {
    ++ignored_;  // another tool's ids
    return;
  }
  external_[r.correlationId] = r.externalId;
}

void ActivityConverter::AddContext(const CUpti_ActivityContext3& r) {
  ++records_;
  NoteContext(r.contextId, r.deviceId);
}

uint32_t ActivityConverter::DeviceOfContext(uint32_t context) const {
  auto it = context_device_.find(context);
  return it == context_device_.end() ? kNoDevice : it->second;
}

void ActivityConverter::Emit(Event e, bool has_cupti_correlation) {
  ++events_;
  pending_.push_back(Pending{std::move(e), has_cupti_correlation});
}

std::vector<Event> ActivityConverter::TakeEvents() {
  for (const CUpti_ActivitySynchronization2& r : unresolved_syncs_) {
    Emit(FromSync(r, DeviceOfContext(r.contextId), ctx_, lanes_), true);
  }
  unresolved_syncs_.clear();

  std::vector<Event> out;
  out.reserve(pending_.size());
  for (Pending& p : pending_) {
    if (p.has_cupti_correlation) {
      auto it = external_.find(static_cast<uint32_t>(p.event.correlation));
      if (it != external_.end()) {
        p.event.correlation = static_cast<int64_t>(it->second);
      } else {
        ++uncorrelated_;
      }
    }
    out.push_back(std::move(p.event));
  }
  pending_.clear();
  return out;
}

std::vector<KernelLaunch> ActivityConverter::TakeLaunches() {
  for (KernelLaunch& k : launches_) {
    auto it = external_.find(static_cast<uint32_t>(k.correlation));
    if (it != external_.end()) k.correlation = it->second;
  }
  return std::exchange(launches_, {});
}

ActivityStats ActivityConverter::stats() const {
  ActivityStats s;
  s.records = records_;
  s.events = events_;
  s.ignored_records = ignored_ + markers_.ignored();
  s.untimed_records = untimed_;
  s.open_markers = markers_.open();
  s.unpaired_markers = markers_.unpaired();
  s.uncorrelated_events = uncorrelated_;
  s.bad_buffers = bad_buffers_;
  return s;
}

size_t ActivityRecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_MARKER:
      return sizeof(CUpti_ActivityMarker2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    default:
      return 0;
  }
}

Status DrainBuffer(const uint8_t* buf, size_t valid_size, ActivityConverter& out) {
  if (valid_size == 0) return Status::Ok();
  if (buf == nullptr) {
    out.NoteBadBuffer();
    return Status::Internal("activity buffer is null but has " + std::to_string(valid_size) + " valid bytes");
  }
  // cuptiActivityGetNextRecord takes a non-const buffer but only reads it.
  uint8_t* base = const_cast<uint8_t*>(buf);
  CUpti_Activity* rec = nullptr;
  size_t count = 0;
  size_t next = 0;  // offset just past the last record, where its size is known
  for (;;) {
    const CUptiResult r = cuptiActivityGetNextRecord(base, valid_size, &rec);
    if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (r != CUPTI_SUCCESS) {
      out.NoteBadBuffer();
      const Status s = CuptiError("cuptiActivityGetNextRecord", r, BRAID_SOURCE_FILE, __LINE__);
      return Status::Internal("activity buffer: record " + std::to_string(count) + " at offset " +
                              std::to_string(next) + " of " + std::to_string(valid_size) +
                              " is unreadable: " + s.message());
    }
    out.Add(*rec);
    ++count;
    const size_t size = ActivityRecordSize(rec->kind);
    next = size == 0 ? valid_size : static_cast<size_t>(reinterpret_cast<uint8_t*>(rec) - base) + size;
  }
  // CUPTI stops quietly when the valid bytes end inside a record.
  if (next < valid_size) {
    out.NoteBadBuffer();
    return Status::Internal("activity buffer: " + std::to_string(valid_size - next) + " bytes after record " +
                            std::to_string(count) + " at offset " + std::to_string(next) + " hold no whole record");
  }
  return Status::Ok();
}

}  // namespace braid
