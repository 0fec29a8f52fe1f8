// Stateful side of the conversion: dispatches records by kind, joins what
// spans records or buffers (NVTX start/end, external correlation ids,
// contexts -> devices for sync records) and counts everything it could not
// turn into an event, so nothing is lost silently.
//
// Not thread-safe: CuptiCollector serializes the buffer callbacks.
#pragma once

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "braid/cupti_records.h"
#include "braid/event.h"
#include "braid/marker_pairer.h"
#include "braid/status.h"

namespace braid {

struct ActivityStats {
  uint64_t records = 0;              // records walked
  uint64_t events = 0;               // events produced
  uint64_t ignored_records = 0;      // kinds not turned into events (API records, ...)
  uint64_t untimed_records = 0;      // CUPTI could not time them (start == end == 0)
  uint64_t open_markers = 0;         // NVTX starts still waiting for their end
  uint64_t unpaired_markers = 0;     // NVTX ends without a start, superseded starts
  uint64_t uncorrelated_events = 0;  // GPU events without a Braid external id (so far)
  uint64_t bad_buffers = 0;          // buffers whose walk stopped early (see DrainBuffer)
  // Filled by CuptiCollector:
  uint64_t dropped_records = 0;  // cuptiActivityGetNumDroppedRecords, summed
  uint64_t buffers_completed = 0;
  uint64_t buffer_alloc_failures = 0;
};

class ActivityConverter {
 public:
  explicit ActivityConverter(ConversionContext ctx = {}) : ctx_(std::move(ctx)) {}

  // Converts one record of any kind. The record's memory may be released
  // as soon as this returns.
  void Add(const CUpti_Activity& record);

  void AddKernel(const CUpti_ActivityKernel10& r);
  void AddMemcpy(const CUpti_ActivityMemcpy6& r);
  void AddMemcpyPtoP(const CUpti_ActivityMemcpyPtoP4& r);
  void AddMemset(const CUpti_ActivityMemset4& r);
  void AddSync(const CUpti_ActivitySynchronization2& r);
  void AddMarker(const CUpti_ActivityMarker2& r);
  void AddExternalCorrelation(const CUpti_ActivityExternalCorrelation& r);
  void AddContext(const CUpti_ActivityContext3& r);

  // Events converted since the last call, in record order (sync records
  // whose device was unknown come last). A GPU event whose CUPTI
  // correlation id has a Braid external id (kBraidCorrelationKind) gets
  // that id as Event::correlation; others keep the CUPTI id and are counted
  // in uncorrelated_events. Id mappings are kept, not consumed.
  std::vector<Event> TakeEvents();
  // Kernel launches recorded since the last call (only with
  // ConversionContext::keep_launches), correlation resolved as TakeEvents
  // does; untimed kernel records count too (their geometry is known).
  std::vector<KernelLaunch> TakeLaunches();

  const std::vector<std::string>& lane_names() const { return lanes_.names(); }
  ActivityStats stats() const;
  const ConversionContext& context() const { return ctx_; }

  // For DrainBuffer.
  void NoteBadBuffer() { ++bad_buffers_; }

 private:
  struct Pending {
    Event event;
    bool has_cupti_correlation = false;
  };
  void Emit(Event e, bool has_cupti_correlation);
  void NoteContext(uint32_t context, uint32_t device) { context_device_[context] = device; }
  uint32_t DeviceOfContext(uint32_t context) const;

  ConversionContext ctx_;
  LaneTable lanes_;
  MarkerPairer markers_;
  std::vector<Pending> pending_;
  std::vector<KernelLaunch> launches_;                            // CUPTI correlation ids until TakeLaunches
  std::vector<CUpti_ActivitySynchronization2> unresolved_syncs_;  // context's device unknown yet
  std::unordered_map<uint32_t, uint32_t> context_device_;
  std::unordered_map<uint32_t, uint64_t> external_;  // CUPTI correlation id -> Braid id
  uint64_t records_ = 0, events_ = 0, ignored_ = 0, untimed_ = 0, uncorrelated_ = 0, bad_buffers_ = 0;
};

// Size of the record CUPTI lays out for `kind`, for the kinds we convert;
// 0 for the others.
size_t ActivityRecordSize(CUpti_ActivityKind kind);

// Walks the records of a completed activity buffer with
// cuptiActivityGetNextRecord (which needs no driver: it only reads the
// buffer) and feeds each to `out`. Stops with an Internal status naming the
// offset when a record's kind is invalid or the valid bytes end inside a
// record; the records before it are kept and the buffer is counted bad.
// @pre buf is 8-byte aligned (CUPTI's record alignment), or valid_size == 0.
Status DrainBuffer(const uint8_t* buf, size_t valid_size, ActivityConverter& out);

}  // namespace braid
