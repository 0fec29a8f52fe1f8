// NVTX ranges arrive from CUPTI as two MARKER records, a start (with the
// name) and an end (name NULL) sharing an id. MarkerPairer joins them into
// one kMarker event; instantaneous markers become zero-length events.
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "braid/cupti_records.h"
#include "braid/event.h"

namespace braid {

class MarkerPairer {
 public:
  // Returns the finished event for an end or instantaneous marker, nothing
  // for a start (kept until its end) or a record it cannot use (counted).
  // The lane (from the marker's object: a host thread, or a device stream)
  // is assigned when the start is seen.
  std::optional<Event> Add(const CUpti_ActivityMarker2& r, const ConversionContext& ctx, LaneTable& lanes);

  size_t open() const { return open_.size(); }  // starts still waiting for their end
  // Ends without a start, and starts superseded by a new start with their id.
  uint64_t unpaired() const { return unpaired_; }
  uint64_t ignored() const { return ignored_; }  // sync-object markers, no timestamp

 private:
  struct Open {
    std::string name;
    int64_t start_ns = 0;
    int lane = 0;
    int rank = 0;
  };
  std::unordered_map<uint32_t, Open> open_;  // by marker id
  uint64_t unpaired_ = 0;
  uint64_t ignored_ = 0;
};

// "domain:name", or just the name in the default domain; "" for NULL.
std::string MarkerName(const CUpti_ActivityMarker2& r);
LaneKey MarkerLane(const CUpti_ActivityMarker2& r);

}  // namespace braid
