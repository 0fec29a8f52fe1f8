// CUPTI activity records -> braid::Events, as pure functions of the record,
// a ConversionContext and the lane table. No CUDA driver, GPU or CUPTI
// session is needed: tests build the records by hand.
//
// Record versions are those of the CUPTI headers we build against
// (CUDA 13: Kernel10, Memcpy6, MemcpyPtoP4, Memset4, Synchronization2,
// Marker2); CUPTI writes exactly these layouts into activity buffers.
#pragma once

#include <cupti_activity.h>

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "braid/event.h"

namespace braid {

// Braid tags its GPU work with cuptiActivityPushExternalCorrelationId of
// this kind. CUSTOM0/CUSTOM1 are left to others (Kineto uses them), so a
// Braid run inside a PyTorch-profiled process does not mix ids.
inline constexpr CUpti_ExternalCorrelationKind kBraidCorrelationKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;

// CUPTI's "not applicable" stream/event id (cuCtxSynchronize has no stream).
inline constexpr uint32_t kNoStream = 0xFFFFFFFFu;

struct ConversionContext {
  int rank = 0;           // rank of every event unless device_rank says otherwise
  int iteration = 0;      // copied into every event
  int64_t origin_ns = 0;  // subtracted from every CUPTI timestamp (ns)
  // Device ordinal -> rank, for a process that drives several GPUs. Empty:
  // every event gets `rank` and a peer is the peer's device ordinal.
  std::vector<int> device_rank;
  // Kernels whose names contain one of these are comm too (besides NCCL's),
  // e.g. Braid's own copy kernels.
  std::vector<std::string> comm_kernel_patterns;
  // Also keep every kernel's launch geometry (ActivityConverter::TakeLaunches):
  // `calibrate --measure` logs which kernel, grid and cluster cuBLASLt chose.
  bool keep_launches = false;
};

// A kernel launch's geometry from its CUPTI record, which no Event keeps:
// what a GEMM library chose for a shape (its kernel, grid, cluster and
// resources), so that a model's kernel choice can be checked against it.
struct KernelLaunch {
  std::string name;
  uint64_t correlation = 0;  // as Event::correlation (a Braid id once resolved)
  int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int cluster[3] = {0, 0, 0};   // 0 x 0 x 0: launched without clusters
  int registers = 0;            // per thread
  int shared_bytes = 0;         // static + dynamic, per CTA
  int max_active_clusters = 0;  // CUPTI's figure for this launch's clusters (0: none)
};
KernelLaunch LaunchOf(const CUpti_ActivityKernel10& r);

// Where an event ran: a (device, stream) pair; a (context, stream) pair when
// the context's device is not known (sync records carry no device); or a
// host thread (NVTX markers).
struct LaneKey {
  enum class Where : uint8_t { kStream, kContextStream, kHostThread };
  Where where = Where::kStream;
  uint32_t id = 0;      // device, context or thread id
  uint32_t stream = 0;  // unused for kHostThread
  auto operator<=>(const LaneKey&) const = default;
};

// "dev D stream S", "dev D no stream", "ctx C stream S", "host thread T".
std::string LaneName(const LaneKey& key);

// One lane per LaneKey, numbered 0, 1, 2, ... in first-seen order.
// Lanes are per process (not per rank): a process driving two GPUs has
// distinct lanes for each device's streams.
class LaneTable {
 public:
  // @post 0 <= result < size(); the same key always gets the same lane.
  int LaneFor(const LaneKey& key);
  int StreamLane(uint32_t device, uint32_t stream) { return LaneFor({LaneKey::Where::kStream, device, stream}); }
  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::map<LaneKey, int> ids_;
  std::vector<std::string> names_;  // indexed by lane
};

// NCCL's kernels, mangled or not: "^nccl", "ncclKernel", "ncclDevKernel".
bool IsNcclKernelName(std::string_view name);
// NCCL's, or one of ctx.comm_kernel_patterns.
bool IsCommKernelName(std::string_view name, const ConversionContext& ctx);

int64_t NormalizeTimestamp(uint64_t cupti_ns, const ConversionContext& ctx);
int RankOfDevice(uint32_t device, const ConversionContext& ctx);
// A peer device as Event::peer: its rank when device_rank knows it, else the
// device ordinal.
int PeerOfDevice(uint32_t device, const ConversionContext& ctx);

// True when CUPTI could not time the activity (start == end == 0); such
// records are skipped and counted by the converter, not turned into events.
inline bool Untimed(uint64_t start, uint64_t end) { return start == 0 && end == 0; }

// Every From* returns an event with iteration and rank from ctx, lane from
// `lanes`, times normalized to ctx.origin_ns, correlation = the CUPTI
// correlation id (ActivityConverter swaps in Braid's external id), and
// chunk = step = -1, flops = 0. Names are copied: CUPTI owns its strings
// only until the buffer is released.

// kComm for NCCL (or ctx pattern) kernels, else kCompute; name = kernel name.
Event FromKernel(const CUpti_ActivityKernel10& r, const ConversionContext& ctx, LaneTable& lanes);
// kCopy with bytes; "memcpy HtoD" etc. A PtoP copyKind (peer copy reported
// without MEMCPY2 detail) is kComm with an unknown peer (-1).
Event FromMemcpy(const CUpti_ActivityMemcpy6& r, const ConversionContext& ctx, LaneTable& lanes);
// Peer-to-peer copy (MEMCPY2): kComm "memcpy PtoP", bytes, peer = the device on the other
// end: the destination, or the source when the destination is the device
// that ran the copy. A copy within one device is kCopy with no peer.
Event FromMemcpyPtoP(const CUpti_ActivityMemcpyPtoP4& r, const ConversionContext& ctx, LaneTable& lanes);
// kCopy, "memset", bytes set.
Event FromMemset(const CUpti_ActivityMemset4& r, const ConversionContext& ctx, LaneTable& lanes);
// kSync, host-side duration of the synchronization call. Sync records carry
// a context but no device: `device` is that context's device, or kNoDevice
// when unknown (the lane is then "ctx C stream S").
inline constexpr uint32_t kNoDevice = 0xFFFFFFFFu;
Event FromSync(const CUpti_ActivitySynchronization2& r, uint32_t device, const ConversionContext& ctx,
               LaneTable& lanes);

std::string_view MemcpyKindName(uint8_t copy_kind);  // "memcpy HtoD", ...
std::string_view SyncTypeName(CUpti_ActivitySynchronizationType type);

}  // namespace braid
