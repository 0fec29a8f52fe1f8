// FakeGpu's scheduler: ready heads run in a seeded random order until
// nothing can run; NCCL ops run when every op they are matched with is at
// the head of its stream (rendezvous), then all of them complete together.
#include <algorithm>
#include <cstring>
#include <set>

#include "../host/dtype_convert.h"
#include "fake_world.h"

namespace braid::cuda {

FakeThread& ThisThread() {
  static thread_local FakeThread t;
  return t;
}

FakeAlloc* FakeGpu::World::Check(const void* p, size_t bytes, const std::string& what) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  auto it = allocs.upper_bound(at);
  if (it != allocs.begin()) {
    --it;
    FakeAlloc& a = it->second;
    if (at >= it->first && at + bytes <= it->first + a.size) {
      if (a.freed) {
        Fail(what + ": touches freed memory");
        return nullptr;
      }
      return &a;
    }
  }
  Fail(what + ": " + std::to_string(bytes) + " bytes outside every allocation");
  return nullptr;
}

bool FakeGpu::World::CheckAccess(int stream, const void* p, size_t bytes, const std::string& what) {
  const FakeStream& st = streams[size_t(stream)];
  return CheckReach(st.device, st.process, false, p, bytes, what);
}

namespace {

std::string Offset(const void* p, const char* base) { return std::to_string(static_cast<const char*>(p) - base); }

}  // namespace

bool FakeGpu::World::CheckReach(int device, int process, bool host, const void* p, size_t bytes,
                                const std::string& what) {
  FakeAlloc* a = Check(p, bytes, what);
  if (a == nullptr) return false;
  if (a->process == process && (host || a->device == device || peer_enabled[{device, a->device}])) return true;
  // Another process's memory, or another device's without peer access: only
  // a registered window that this rank joined maps it.
  const char* at = static_cast<const char*>(p);
  for (const FakeWindow& w : windows) {
    if (w.deregistered || w.process != a->process || at < w.buf || at >= w.buf + w.bytes) continue;
    if (at + bytes > w.buf + w.bytes) {
      Fail(what + ": " + std::to_string(bytes) + " bytes at offset " + Offset(p, w.buf) + " run past the end of rank " +
           std::to_string(w.rank) + "'s NCCL window #" + std::to_string(w.seq) + " (" + std::to_string(w.bytes) +
           " bytes): the window is too small");
      return false;
    }
    for (const FakeWindow& mine : windows) {
      if (!mine.deregistered && mine.clique == w.clique && mine.seq == w.seq && mine.process == process &&
          mine.device == device) {
        return true;
      }
    }
    Fail(what + ": rank " + std::to_string(w.rank) + "'s NCCL window #" + std::to_string(w.seq) +
         " is not mapped on device " + std::to_string(device) + ": this rank has not registered its own window #" +
         std::to_string(w.seq) + " (registration is collective; a peer pointer used before registration)");
    return false;
  }
  if (a->process != process) {
    Fail(what + ": device " + std::to_string(device) + " of process " + std::to_string(process) +
         " touches memory of process " + std::to_string(a->process) + " (device " + std::to_string(a->device) +
         ") that no registered NCCL window maps: a peer pointer used before registration or after deregistration");
  } else {
    Fail(what + ": device " + std::to_string(device) + " touches device " + std::to_string(a->device) +
         "'s memory without peer access");
  }
  return false;
}

int FakeGpu::World::StreamIndex(GpuStream s, const char* call) {
  const size_t i = size_t(reinterpret_cast<uintptr_t>(s));
  if (i == 0 || i > streams.size() || streams[i - 1].destroyed) {
    Fail(std::string(call) + " on a stream that does not exist");
    return -1;
  }
  return int(i - 1);
}

void FakeGpu::World::Enqueue(int stream, FakeOp op) {
  const FakeThread& t = ThisThread();
  op.id = next_op++;
  op.label = t.label;
  op.correlation = t.correlation;
  ++stats.ops;
  streams[size_t(stream)].ops.push_back(std::move(op));
}

void FakeGpu::World::Emit(int stream, const FakeOp& op, int64_t start, int64_t end) {
  const int device = streams[size_t(stream)].device;
  const bool device_traced = device_tracing.count(device) > 0 && device_tracing[device];
  if ((!tracing && !device_traced) || op.correlation < 0) return;
  Event e;
  e.name = op.what;
  e.lane = stream;
  e.start_ns = start;
  e.end_ns = end;
  e.correlation = op.correlation;
  if (device_traced) device_trace[device].push_back(e);
  if (tracing) trace.push_back(std::move(e));
}

void FakeGpu::World::Progress() {
  for (;;) {
    std::vector<int> ready;
    for (size_t i = 0; i < streams.size(); ++i) {
      if (!streams[i].ops.empty()) ready.push_back(int(i));
    }
    std::shuffle(ready.begin(), ready.end(), rng);
    bool ran = false;
    for (int s : ready) {
      if (!streams[size_t(s)].ops.empty() && RunHead(s)) ran = true;
    }
    if (!ran) return;
  }
}

bool FakeGpu::World::RunHead(int s) {
  FakeStream& st = streams[size_t(s)];
  FakeOp& op = st.ops.front();
  switch (op.kind) {
    case OpKind::kWork: {
      if (op.apply) op.apply();
      const int64_t start = st.clock;
      st.clock += op.duration;
      Emit(s, op, start, st.clock);
      break;
    }
    case OpKind::kRecord:
      done_records[op.id] = st.clock;
      break;
    case OpKind::kWaitEvent: {
      auto it = done_records.find(op.record);
      if (it == done_records.end()) return false;
      st.clock = std::max(st.clock, it->second);
      break;
    }
    case OpKind::kWaitFlag:
      // CU_STREAM_WAIT_VALUE_GEQ is cyclic: (int32_t)(*addr - value) >= 0.
      if (int32_t(*op.flag - op.value) < 0) return false;
      st.clock = std::max(st.clock, flag_time[op.flag]);
      break;
    case OpKind::kWriteFlag:
      if (!op.dropped) {
        *op.flag = op.value;
        flag_time[op.flag] = st.clock;
      }
      break;
    case OpKind::kNccl:
      return RunNccl(s);
    case OpKind::kFused:
      return RunFused(s);
    case OpKind::kCoreGemm:
      return RunCoreGemm(s);
    case OpKind::kCoreReduce:
      return RunCoreReduce(s);
    case OpKind::kCorePulls: {
      // The pull kernel waits for nothing: every pull's rows, then its flag
      // (the last CTA's), as the kernel raises them.
      const gemm::RowPullLaunch& k = *op.pulls;
      for (int i = 0; i < k.count; ++i) {
        const gemm::RowPull& pull = k.pulls[i];
        std::memcpy(pull.dst, pull.src, size_t(pull.bytes));
        k.done[i] += uint32_t(op.pull_ctas);
        if (k.done[i] == k.epoch * uint32_t(op.pull_ctas) && pull.flag != k.never_set_flag) {
          k.flags[pull.flag] = k.epoch;
          flag_time[k.flags + pull.flag] = st.clock + op.duration;
        }
      }
      const int64_t start = st.clock;
      st.clock += op.duration;
      Emit(s, op, start, st.clock);
      break;
    }
  }
  st.ops.pop_front();
  return true;
}

namespace {

// The stream whose head op holds the partner of `part` of comm `from_comm`'s rank.
int FindP2pPartner(const FakeGpu::World& w, const P2pPart& part, int partner_comm) {
  const int me = w.comms[size_t(part.comm)].rank;
  for (size_t i = 0; i < w.streams.size(); ++i) {
    const FakeStream& st = w.streams[i];
    if (st.ops.empty() || st.ops.front().kind != OpKind::kNccl) continue;
    for (const P2pPart& q : st.ops.front().p2p) {
      if (q.comm == partner_comm && q.send != part.send && q.peer == me && q.seq == part.seq) return int(i);
    }
  }
  return -1;
}

int FindCollPartner(const FakeGpu::World& w, int comm, uint64_t seq) {
  for (size_t i = 0; i < w.streams.size(); ++i) {
    const FakeStream& st = w.streams[i];
    if (st.ops.empty() || st.ops.front().kind != OpKind::kNccl) continue;
    const auto& c = st.ops.front().coll;
    if (c && c->comm == comm && c->seq == seq) return int(i);
  }
  return -1;
}

int CommOfRank(const FakeGpu::World& w, int clique, int rank) {
  for (size_t i = 0; i < w.comms.size(); ++i) {
    if (w.comms[i].clique == clique && w.comms[i].rank == rank) return int(i);
  }
  return -1;
}

void RunCollective(std::vector<const CollPart*>& parts) {
  const size_t n = parts.size();
  const CollPart& p0 = *parts[0];
  const size_t count = p0.count;
  const size_t send_elems = p0.kind == CollectiveKind::kReduceScatter ? n * count : count;
  if (p0.kind == CollectiveKind::kAllGather) {
    // Bytes, whatever the type (FP8 codes included): read every input before
    // writing any output (buffers may alias).
    const size_t bytes = count * size_t(DTypeBytes(p0.dtype));
    std::vector<std::vector<char>> raw(n);
    for (size_t r = 0; r < n; ++r) raw[r].assign(parts[r]->send, parts[r]->send + bytes);
    for (size_t r = 0; r < n; ++r) {
      for (size_t q = 0; q < n; ++q) std::memcpy(parts[r]->recv + q * bytes, raw[q].data(), bytes);
    }
    return;
  }
  // Sums in fp32, rounded to the type once (NCCL's FP8 sums too, on sm_90).
  std::vector<std::vector<float>> in(n, std::vector<float>(send_elems));
  for (size_t r = 0; r < n; ++r) LoadFrom(p0.dtype, parts[r]->send, send_elems, in[r].data());
  for (size_t r = 0; r < n; ++r) {
    const CollPart& p = *parts[r];
    const size_t off = p.kind == CollectiveKind::kReduceScatter ? r * count : 0;
    std::vector<float> sum(count, 0.0f);
    for (size_t q = 0; q < n; ++q) {
      for (size_t i = 0; i < count; ++i) sum[i] += in[q][off + i];
    }
    StoreAs(p.dtype, sum.data(), count, p.recv);
  }
}

}  // namespace

bool FakeGpu::World::RunNccl(int s) {
  // The component: every op linked to this one through a matched part, all at their heads.
  std::vector<int> members{s};
  std::set<int> seen{s};
  std::vector<std::pair<const P2pPart*, const P2pPart*>> pairs;  // send, recv
  std::vector<const CollPart*> coll;
  for (size_t at = 0; at < members.size(); ++at) {
    const FakeOp& op = streams[size_t(members[at])].ops.front();
    for (const P2pPart& part : op.p2p) {
      const FakeComm& c = comms[size_t(part.comm)];
      if (c.aborted) continue;
      const int partner_comm = CommOfRank(*this, c.clique, part.peer);
      const int other = partner_comm < 0 ? -1 : FindP2pPartner(*this, part, partner_comm);
      if (other < 0) return false;
      if (seen.insert(other).second) members.push_back(other);
      if (part.send) {
        for (const P2pPart& q : streams[size_t(other)].ops.front().p2p) {
          if (q.comm == partner_comm && !q.send && q.peer == c.rank && q.seq == part.seq) pairs.push_back({&part, &q});
        }
      }
    }
    if (op.coll) {
      const FakeComm& c = comms[size_t(op.coll->comm)];
      for (int r = 0; r < c.nranks; ++r) {
        const int other = FindCollPartner(*this, CommOfRank(*this, c.clique, r), op.coll->seq);
        if (other < 0) return false;
        if (seen.insert(other).second) members.push_back(other);
      }
    }
  }
  int64_t start = 0, duration = 1;
  for (int m : members) {
    start = std::max(start, streams[size_t(m)].clock);
    duration = std::max(duration, streams[size_t(m)].ops.front().duration);
  }
  for (const auto& [snd, rcv] : pairs) {
    if (snd->bytes != rcv->bytes) {
      Fail("NCCL send of " + std::to_string(snd->bytes) + " bytes met a recv of " + std::to_string(rcv->bytes) +
           " bytes (" + streams[size_t(s)].ops.front().label + ")");
    } else {
      std::memmove(rcv->buf, snd->buf, snd->bytes);
    }
  }
  // Collective members ordered by rank.
  std::vector<std::pair<int, const CollPart*>> ranked;
  for (int m : members) {
    const auto& c = streams[size_t(m)].ops.front().coll;
    if (c) ranked.push_back({comms[size_t(c->comm)].rank, &*c});
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  coll.reserve(ranked.size());
  for (const auto& [r, c] : ranked) coll.push_back(c);
  if (!coll.empty()) RunCollective(coll);
  for (int m : members) {
    FakeStream& st = streams[size_t(m)];
    st.clock = start + duration;
    Emit(m, st.ops.front(), start, st.clock);
    st.ops.pop_front();
  }
  return true;
}

std::string DescribeHead(const FakeGpu::World& w, int stream) {
  const FakeStream& st = w.streams[size_t(stream)];
  const FakeOp& op = st.ops.front();
  std::string line = "device " + std::to_string(st.device) + " stream " + std::to_string(stream) + " at " +
                     (op.label.empty() ? std::string("(no step)") : op.label) + ": ";
  switch (op.kind) {
    case OpKind::kWaitEvent:
      return line + "waits for an event that never fires";
    case OpKind::kWaitFlag:
      return line + "waits for a flag to reach " + std::to_string(op.value) + " (it is " + std::to_string(*op.flag) +
             ")";
    case OpKind::kNccl:
      return line + op.what + " never met its peers' matching calls";
    case OpKind::kFused:
      return line + "a fused kernel whose peers' kernels were never launched";
    case OpKind::kCoreGemm:
      return line + "the GEMM core waits for rows whose flag is never raised";
    case OpKind::kCoreReduce:
      return line + "the GEMM core's reduce waits for partials that never arrive";
    case OpKind::kCorePulls:
      return line + "the pull kernel";
    default:
      return line + op.what;
  }
}

bool FakeGpu::World::LoadKernel(int stream, const std::string& kernel) {
  if (!config.lazy_module_loading) return true;
  const FakeStream& at = streams[size_t(stream)];
  if (!loaded_kernels.emplace(at.process, at.device, kernel).second) return true;
  ++stats.kernel_loads;
  return WaitForDrain(
      stream, "the first launch of " + kernel + " (" + ThisThread().label + ") loads its module (CUDA lazy loading)");
}

bool FakeGpu::World::SetUpStream(int stream, const std::string& engine) {
  if (!config.lazy_stream_setup) return true;
  const FakeStream& at = streams[size_t(stream)];
  if (!loaded_kernels.emplace(at.process, at.device, "stream " + std::to_string(stream) + " " + engine).second) {
    return true;
  }
  ++stats.stream_setups;
  return WaitForDrain(stream, "the first " + engine + " on stream " + std::to_string(stream) + " (" +
                                  ThisThread().label + ") sets up its channel");
}

bool FakeGpu::World::WaitForDrain(int stream, const std::string& why) {
  const FakeStream& at = streams[size_t(stream)];
  Progress();  // the load waits for the device to drain
  std::string stuck;
  for (size_t i = 0; i < streams.size(); ++i) {
    const FakeStream& other = streams[i];
    if (other.ops.empty() || other.device != at.device || other.process != at.process) continue;
    stuck += (stuck.empty() ? "" : "; ") + DescribeHead(*this, int(i));
  }
  if (stuck.empty()) return true;
  Fail(why + ", which waits for the device to drain, but " + stuck + ": a deadlock on a real GPU");
  return false;
}

std::string FakeGpu::World::Blocked() const {
  std::string out;
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i].ops.empty()) continue;
    if (!out.empty()) out += "; ";
    out += DescribeHead(*this, int(i));
  }
  return out;
}

}  // namespace braid::cuda
