// The state behind FakeGpu and its scheduler (private to the fakes).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "braid/cuda_fakes.h"
#include "braid/fused_kernel_api.h"
#include "braid/gemm_core_api.h"

namespace braid::cuda {

enum class OpKind {
  kWork,
  kRecord,
  kWaitEvent,
  kWaitFlag,
  kWriteFlag,
  kNccl,
  kFused,
  kCoreGemm,
  kCoreReduce,
  kCorePulls
};

struct P2pPart {
  bool send = true;
  int comm = 0;  // this rank's communicator
  int peer = 0;
  uint64_t seq = 0;  // k-th send (recv) on this comm to (from) peer
  char* buf = nullptr;
  size_t bytes = 0;
};

struct CollPart {
  CollectiveKind kind = CollectiveKind::kAllGather;
  int comm = 0;
  uint64_t seq = 0;
  char* send = nullptr;
  char* recv = nullptr;
  size_t count = 0;
  DType dtype = DType::kFp32;
};

struct FakeOp {
  uint64_t id = 0;
  OpKind kind = OpKind::kWork;
  std::string label;  // the step that issued it
  int64_t correlation = -1;
  std::string what;
  int64_t duration = 1;
  std::function<void()> apply;  // kWork: the data effect
  uint64_t record = 0;          // kWaitEvent: the record op waited for
  uint32_t* flag = nullptr;     // kWaitFlag / kWriteFlag
  uint32_t value = 0;
  bool dropped = false;  // kWriteFlag: fault injection
  std::vector<P2pPart> p2p;
  std::optional<CollPart> coll;
  std::optional<FusedLaunch> fused;           // kFused: one rank's kernel
  std::optional<CoreGemmLaunch> core;         // kCoreGemm: one GEMM core launch
  std::optional<gemm::PartialReduce> reduce;  // kCoreReduce: one owner's reduce
  std::optional<gemm::RowPullLaunch> pulls;   // kCorePulls: an all-gather's pulls by SMs
  int pull_ctas = 0;
  // kCoreGemm, kCoreReduce: when it first found a flag it waits for still down (its
  // timeout counts from there); unset while it has not waited.
  std::optional<std::chrono::steady_clock::time_point> waiting_since;
};

// `process`: the fake process that created a stream or an allocation; -1 for
// FakeGpu::cuda()/nccl()/Seams(), which are all one process.
struct FakeStream {
  int device = 0;
  int process = -1;
  std::deque<FakeOp> ops;
  int64_t clock = 0;
  bool destroyed = false;
};

struct FakeAlloc {
  size_t size = 0;
  int device = 0;
  int process = -1;
  bool freed = false;
  std::unique_ptr<char[]> data;
};

struct FakeComm {
  int clique = 0;
  int process = -1, device = 0;
  int rank = 0;
  int nranks = 0;
  bool aborted = false;
  std::map<int, uint64_t> sends, recvs;  // per peer
  uint64_t collectives = 0;
  uint64_t windows = 0;
};

// An NCCL symmetric window: the k-th registered on a communicator is matched
// across ranks by (clique, k), as NCCL's collective registration does. A
// rank reaches a peer's window #k only once it registered its own #k (the
// registration maps every member's buffer into every member's device).
struct FakeWindow {
  int clique = 0, rank = 0;
  int process = -1;
  uint64_t seq = 0;
  char* buf = nullptr;
  size_t bytes = 0;
  int device = 0;
  bool deregistered = false;
};

struct CollSignature {
  CollectiveKind kind;
  size_t count;
  DType dtype;
  int rank;  // who issued it first
};

// Per-thread state of the calling host thread (like CUDA's current device).
struct FakeThread {
  int device = 0;
  std::string label;
  int64_t correlation = -1;
  bool grouping = false;
  std::vector<std::pair<int, P2pPart>> group;  // (stream index, part)
  int group_stream = -1;
};
FakeThread& ThisThread();

struct FakeGpu::World {
  explicit World(FakeGpuConfig c) : config(std::move(c)), rng(config.schedule_seed) {}

  mutable std::mutex mu;
  FakeGpuConfig config;
  std::mt19937_64 rng;
  std::vector<FakeStream> streams;
  std::vector<uint64_t> events;  // last record op id (0 = never recorded)
  std::map<uintptr_t, FakeAlloc> allocs;
  std::unordered_map<uint64_t, int64_t> done_records;  // record op id -> time
  std::map<const uint32_t*, int64_t> flag_time;
  std::map<const uint32_t*, int64_t> counter_time;   // a GEMM core's scatter counters: when last raised
  std::map<std::pair<int, int>, bool> peer_enabled;  // (device, peer)
  uint64_t next_op = 1;
  std::string error;  // sticky: the first check that failed
  std::vector<FakeComm> comms;
  std::vector<FakeWindow> windows;
  std::set<uintptr_t> nccl_memory;     // allocations from ncclMemAlloc
  std::map<std::string, int> cliques;  // unique id bytes -> clique
  std::vector<std::vector<CollSignature>> clique_collectives;
  uint64_t next_unique_id = 1;
  int next_process = 0;
  bool tracing = false;
  std::vector<Event> trace;
  // Per-device tracers (one process of an mpirun job sees its own GPU only).
  std::map<int, bool> device_tracing;
  std::map<int, std::vector<Event>> device_trace;
  FakeGpuStats stats;
  // Kernels already loaded, per (process, device): see FakeGpuConfig::lazy_module_loading.
  std::set<std::tuple<int, int, std::string>> loaded_kernels;
  // cudaFree calls made while their device could not drain (device, process).
  std::vector<std::pair<int, int>> frees_waiting;

  // All need `mu` held.
  void Fail(const std::string& why) {
    if (error.empty()) error = why;
  }
  // The allocation holding [p, p + bytes), or null (and Fail naming `what`).
  FakeAlloc* Check(const void* p, size_t bytes, const std::string& what);
  // Also requires the device of `stream` to reach the allocation.
  bool CheckAccess(int stream, const void* p, size_t bytes, const std::string& what);
  // Whether `device` of `process` reaches [p, p + bytes): its own process's
  // memory on its device or on a peer it enabled, else only through an NCCL
  // window both sides registered (fails naming why not). `host`: a
  // cudaMemcpy from the host, which reaches any device of its own process.
  bool CheckReach(int device, int process, bool host, const void* p, size_t bytes, const std::string& what);
  int StreamIndex(GpuStream s, const char* call);
  void Enqueue(int stream, FakeOp op);
  // Runs every op that can run; returns after a pass that ran nothing.
  void Progress();
  bool RunHead(int stream);
  bool RunNccl(int stream);
  // Runs every rank's fused kernel of one launch together (fake_fused.cc).
  bool RunFused(int stream);
  // A GEMM core launch whose flags are all up, a reduce whose counters are
  // (fake_gemm_core.cc).
  bool RunCoreGemm(int stream);
  bool RunCoreReduce(int stream);
  // A GEMM core launch or reduce at a stream's head that waited past its timeout, or
  // (report_hangs) that nothing left can unblock, ends as the kernel does:
  // its record names the step, and the launch fails (sticky, as a trap).
  // Returns whether one did.
  bool TimeOutCoreGemms();
  std::string Blocked() const;  // one line per stuck stream
  // A launch of `kernel` on `stream`: its first in the stream's process and
  // device loads it, which needs that device idle (fails if it cannot drain).
  bool LoadKernel(int stream, const std::string& kernel);
  // The first copy or flag operation (`engine`) on `stream`: needs the device
  // idle too (FakeGpuConfig::lazy_stream_setup).
  bool SetUpStream(int stream, const std::string& engine);
  // Drains what can run; fails naming `why` if a stream of `stream`'s device cannot drain.
  bool WaitForDrain(int stream, const std::string& why);
  void Emit(int stream, const FakeOp& op, int64_t start, int64_t end);
};

std::string DescribeHead(const FakeGpu::World& w, int stream);

}  // namespace braid::cuda
