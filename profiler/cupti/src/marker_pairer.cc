#include "braid/marker_pairer.h"

namespace braid {

std::string MarkerName(const CUpti_ActivityMarker2& r) {
  if (r.name == nullptr) return "";
  if (r.domain == nullptr || r.domain[0] == '\0') return r.name;
  return std::string(r.domain) + ":" + r.name;
}

LaneKey MarkerLane(const CUpti_ActivityMarker2& r) {
  switch (r.objectKind) {
    case CUPTI_ACTIVITY_OBJECT_DEVICE:
    case CUPTI_ACTIVITY_OBJECT_CONTEXT:
      return {LaneKey::Where::kStream, r.objectId.dcs.deviceId, kNoStream};
    case CUPTI_ACTIVITY_OBJECT_STREAM:
      return {LaneKey::Where::kStream, r.objectId.dcs.deviceId, r.objectId.dcs.streamId};
    default:  // NVTX markers are thread objects
      return {LaneKey::Where::kHostThread, r.objectId.pt.threadId, 0};
  }
}

std::optional<Event> MarkerPairer::Add(const CUpti_ActivityMarker2& r, const ConversionContext& ctx, LaneTable& lanes) {
  const uint32_t flags = static_cast<uint32_t>(r.flags);
  const bool start = (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0;
  const bool end = (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0;
  const bool instant = (flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) != 0;
  if (r.timestamp == 0 || (!start && !end && !instant)) {
    ++ignored_;  // untimed, or a sync-object acquire/release marker
    return std::nullopt;
  }
  const int64_t t = NormalizeTimestamp(r.timestamp, ctx);
  if (start) {
    // A reused id replaces the older start: its end can no longer be told apart.
    if (open_.contains(r.id)) ++unpaired_;
    open_[r.id] = Open{MarkerName(r), t, lanes.LaneFor(MarkerLane(r)), ctx.rank};
    return std::nullopt;
  }
  Event e;
  e.iteration = ctx.iteration;
  e.kind = EventKind::kMarker;
  e.end_ns = t;
  if (instant) {
    e.rank = ctx.rank;
    e.lane = lanes.LaneFor(MarkerLane(r));
    e.name = MarkerName(r);
    e.start_ns = t;
    return e;
  }
  auto it = open_.find(r.id);
  if (it == open_.end()) {
    ++unpaired_;
    return std::nullopt;
  }
  e.rank = it->second.rank;
  e.lane = it->second.lane;
  e.name = std::move(it->second.name);
  e.start_ns = it->second.start_ns;
  open_.erase(it);
  return e;
}

}  // namespace braid
