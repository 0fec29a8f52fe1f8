#include "braid/cupti_records.h"

#include <array>

namespace braid {

std::string LaneName(const LaneKey& key) {
  const std::string stream =
      key.stream == kNoStream ? std::string(" no stream") : " stream " + std::to_string(key.stream);
  switch (key.where) {
    case LaneKey::Where::kStream:
      return "dev " + std::to_string(key.id) + stream;
    case LaneKey::Where::kContextStream:
      return "ctx " + std::to_string(key.id) + stream;
    case LaneKey::Where::kHostThread:
      return "host thread " + std::to_string(key.id);
  }
  return "lane";
}

int LaneTable::LaneFor(const LaneKey& key) {
  auto [it, inserted] = ids_.try_emplace(key, static_cast<int>(names_.size()));
  if (inserted) names_.push_back(LaneName(key));
  return it->second;
}

bool IsNcclKernelName(std::string_view name) {
  // Demangled names start with "nccl"; mangled ones ("_Z..ncclDevKernel_..")
  // carry the kernel family inside.
  return name.starts_with("nccl") || name.find("ncclKernel") != std::string_view::npos ||
         name.find("ncclDevKernel") != std::string_view::npos;
}

bool IsCommKernelName(std::string_view name, const ConversionContext& ctx) {
  if (IsNcclKernelName(name)) return true;
  for (const std::string& p : ctx.comm_kernel_patterns) {
    if (!p.empty() && name.find(p) != std::string_view::npos) return true;
  }
  return false;
}

int64_t NormalizeTimestamp(uint64_t cupti_ns, const ConversionContext& ctx) {
  return static_cast<int64_t>(cupti_ns) - ctx.origin_ns;
}

int RankOfDevice(uint32_t device, const ConversionContext& ctx) {
  return device < ctx.device_rank.size() ? ctx.device_rank[device] : ctx.rank;
}

int PeerOfDevice(uint32_t device, const ConversionContext& ctx) {
  return device < ctx.device_rank.size() ? ctx.device_rank[device] : static_cast<int>(device);
}

std::string_view MemcpyKindName(uint8_t copy_kind) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "memcpy",      "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH", "memcpy AtoA",
      "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH", "memcpy PtoP"};
  return copy_kind < kNames.size() ? kNames[copy_kind] : kNames[0];
}

std::string_view SyncTypeName(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "event synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "stream wait event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "stream synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "context synchronize";
    default:
      return "synchronize";
  }
}

namespace {

// The fields every GPU activity shares.
Event DeviceEvent(EventKind kind, std::string name, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                  uint32_t correlation, const ConversionContext& ctx, LaneTable& lanes) {
  Event e;
  e.iteration = ctx.iteration;
  e.rank = RankOfDevice(device, ctx);
  e.lane = lanes.StreamLane(device, stream);
  e.kind = kind;
  e.name = std::move(name);
  e.start_ns = NormalizeTimestamp(start, ctx);
  e.end_ns = NormalizeTimestamp(end, ctx);
  e.correlation = correlation;
  return e;
}

}  // namespace

Event FromKernel(const CUpti_ActivityKernel10& r, const ConversionContext& ctx, LaneTable& lanes) {
  std::string name = r.name != nullptr ? std::string(r.name) : std::string("kernel");
  const EventKind kind = IsCommKernelName(name, ctx) ? EventKind::kComm : EventKind::kCompute;
  return DeviceEvent(kind, std::move(name), r.deviceId, r.streamId, r.start, r.end, r.correlationId, ctx, lanes);
}

KernelLaunch LaunchOf(const CUpti_ActivityKernel10& r) {
  KernelLaunch k;
  k.name = r.name != nullptr ? std::string(r.name) : std::string("kernel");
  k.correlation = r.correlationId;
  k.grid[0] = r.gridX, k.grid[1] = r.gridY, k.grid[2] = r.gridZ;
  k.block[0] = r.blockX, k.block[1] = r.blockY, k.block[2] = r.blockZ;
  k.cluster[0] = int(r.clusterX), k.cluster[1] = int(r.clusterY), k.cluster[2] = int(r.clusterZ);
  k.registers = r.registersPerThread;
  k.shared_bytes = r.staticSharedMemory + r.dynamicSharedMemory;
  k.max_active_clusters = int(r.maxActiveClusters);
  return k;
}

Event FromMemcpy(const CUpti_ActivityMemcpy6& r, const ConversionContext& ctx, LaneTable& lanes) {
  const bool peer = r.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  Event e = DeviceEvent(peer ? EventKind::kComm : EventKind::kCopy, std::string(MemcpyKindName(r.copyKind)), r.deviceId,
                        r.streamId, r.start, r.end, r.correlationId, ctx, lanes);
  e.bytes = static_cast<int64_t>(r.bytes);
  return e;
}

Event FromMemcpyPtoP(const CUpti_ActivityMemcpyPtoP4& r, const ConversionContext& ctx, LaneTable& lanes) {
  const bool same_device = r.srcDeviceId == r.dstDeviceId;
  Event e =
      DeviceEvent(same_device ? EventKind::kCopy : EventKind::kComm,
                  std::string(MemcpyKindName(same_device ? r.copyKind : uint8_t{CUPTI_ACTIVITY_MEMCPY_KIND_PTOP})),
                  r.deviceId, r.streamId, r.start, r.end, r.correlationId, ctx, lanes);
  e.bytes = static_cast<int64_t>(r.bytes);
  if (!same_device) {
    const uint32_t other = r.dstDeviceId == r.deviceId ? r.srcDeviceId : r.dstDeviceId;
    e.peer = PeerOfDevice(other, ctx);
  }
  return e;
}

Event FromMemset(const CUpti_ActivityMemset4& r, const ConversionContext& ctx, LaneTable& lanes) {
  Event e =
      DeviceEvent(EventKind::kCopy, "memset", r.deviceId, r.streamId, r.start, r.end, r.correlationId, ctx, lanes);
  e.bytes = static_cast<int64_t>(r.bytes);
  return e;
}

Event FromSync(const CUpti_ActivitySynchronization2& r, uint32_t device, const ConversionContext& ctx,
               LaneTable& lanes) {
  Event e;
  e.iteration = ctx.iteration;
  e.kind = EventKind::kSync;
  e.name = std::string(SyncTypeName(r.type));
  e.start_ns = NormalizeTimestamp(r.start, ctx);
  e.end_ns = NormalizeTimestamp(r.end, ctx);
  e.correlation = r.correlationId;
  if (device == kNoDevice) {
    e.rank = ctx.rank;
    e.lane = lanes.LaneFor({LaneKey::Where::kContextStream, r.contextId, r.streamId});
  } else {
    e.rank = RankOfDevice(device, ctx);
    e.lane = lanes.StreamLane(device, r.streamId);
  }
  return e;
}

}  // namespace braid
