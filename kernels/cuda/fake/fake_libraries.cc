// FakeNccl (matching checker), and FakeGpu, which ties the fakes together.
#include <cmath>
#include <cstring>

#include "../host/dtype_convert.h"
#include "fake_world.h"

namespace braid::cuda {

std::shared_ptr<CudaApi> MakeFakeCuda(std::shared_ptr<FakeGpu::World> w, int process);
std::shared_ptr<FusedKernelApi> MakeFakeFused(std::shared_ptr<FakeGpu::World> w);
std::shared_ptr<GemmCoreApi> MakeFakeGemmCore(std::shared_ptr<FakeGpu::World> w);
std::unique_ptr<BlasLtApi> MakeFakeBlasLt(std::shared_ptr<FakeGpu::World> w);
std::shared_ptr<GpuTracer> MakeFakeTracer(std::shared_ptr<FakeGpu::World> w, int device);

namespace {

std::string Describe(CollectiveKind k, size_t count, DType d) {
  return std::string(CollectiveName(k)) + " of " + std::to_string(count) + " " + std::string(DTypeName(d));
}

class FakeNccl : public NcclApi {
 public:
  FakeNccl(std::shared_ptr<FakeGpu::World> w, int process) : w_(std::move(w)), process_(process) {}

  Result<NcclUniqueId> GetUniqueId() override {
    std::lock_guard<std::mutex> lock(w_->mu);
    NcclUniqueId id{};
    const uint64_t n = w_->next_unique_id++;
    std::memcpy(id.data(), &n, sizeof n);
    return id;
  }

  Result<NcclComm> CommInitRank(int nranks, const NcclUniqueId& id, int rank, const NcclCommConfig& config) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    if (rank < 0 || rank >= nranks) return Status::Internal("ncclCommInitRank: invalid rank " + std::to_string(rank));
    const std::string key(id.begin(), id.end());
    auto [it, fresh] = w_->cliques.try_emplace(key, int(w_->clique_collectives.size()));
    if (fresh) w_->clique_collectives.emplace_back();
    for (const FakeComm& c : w_->comms) {
      if (c.clique == it->second && c.rank == rank)
        return Status::Internal("ncclCommInitRank: rank " + std::to_string(rank) + " joined twice");
      if (c.clique == it->second && c.nranks != nranks)
        return Status::Internal("ncclCommInitRank: ranks disagree on the size");
    }
    FakeComm c;
    c.clique = it->second;
    c.process = process_;
    c.device = ThisThread().device;
    c.rank = rank;
    c.nranks = nranks;
    w_->comms.push_back(c);
    ++w_->stats.comms;
    w_->stats.comm_max_ctas.push_back(config.max_ctas);
    return reinterpret_cast<NcclComm>(uintptr_t(w_->comms.size()));  // NOLINT(performance-no-int-to-ptr): an id
  }

  Status CommDestroy(NcclComm comm) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int c = CommIndex(comm);
    if (c < 0) return Status::Internal("ncclCommDestroy: unknown communicator");
    if (w_->comms[size_t(c)].aborted) {
      ++w_->stats.calls_after_abort;
      return Status::Internal("ncclCommDestroy on a communicator that ncclCommAbort freed");
    }
    return Status::Ok();
  }

  Status CommAbort(NcclComm comm) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int c = CommIndex(comm);
    if (c < 0) return Status::Internal("ncclCommAbort: unknown communicator");
    w_->comms[size_t(c)].aborted = true;
    ++w_->stats.comm_aborts;
    return Status::Ok();
  }

  Status GroupStart() override {
    FakeThread& t = ThisThread();
    if (t.grouping) return Status::Internal("ncclGroupStart: groups are not nested here");
    t.grouping = true;
    t.group.clear();
    t.group_stream = -1;
    return Status::Ok();
  }

  Status GroupEnd() override {
    FakeThread& t = ThisThread();
    if (!t.grouping) return Status::Internal("ncclGroupEnd without ncclGroupStart");
    t.grouping = false;
    if (t.group.empty()) return Status::Ok();
    std::lock_guard<std::mutex> lock(w_->mu);
    FakeOp op;
    op.kind = OpKind::kNccl;
    op.what = "NCCL group of " + std::to_string(t.group.size()) + " send/recv";
    for (auto& [stream, part] : t.group) {
      if (stream != t.group_stream) return Status::Internal("ncclGroupEnd: one group spans two streams");
      op.p2p.push_back(part);
      op.duration = std::max<int64_t>(op.duration, int64_t(part.bytes / 100 + 5));
    }
    ++w_->stats.nccl_groups;
    w_->Enqueue(t.group_stream, std::move(op));
    t.group.clear();
    return Status::Ok();
  }

  Status Send(DevPtr buf, size_t count, DType dtype, int peer, NcclComm comm, GpuStream s) override {
    return P2p(true, buf, count, dtype, peer, comm, s);
  }
  Status Recv(DevPtr buf, size_t count, DType dtype, int peer, NcclComm comm, GpuStream s) override {
    return P2p(false, buf, count, dtype, peer, comm, s);
  }

  Status Collective(CollectiveKind kind, DevPtr send, DevPtr recv, size_t count, DType dtype, NcclComm comm,
                    GpuStream s) override {
    BRAID_RETURN_IF_ERROR(Injected("ncclCollective"));
    std::lock_guard<std::mutex> lock(w_->mu);
    const int c = CommIndex(comm);
    const int i = w_->StreamIndex(s, "NCCL collective");
    if (c < 0 || i < 0) return Status::Internal("NCCL collective on an unknown communicator or stream");
    FakeComm& fc = w_->comms[size_t(c)];
    const size_t esize = size_t(DTypeBytes(dtype));
    const size_t n = size_t(fc.nranks);
    const size_t send_bytes = (kind == CollectiveKind::kReduceScatter ? n : 1) * count * esize;
    const size_t recv_bytes = (kind == CollectiveKind::kAllGather ? n : 1) * count * esize;
    const std::string what = Describe(kind, count, dtype) + " (" + ThisThread().label + ")";
    if (!w_->CheckAccess(i, send, send_bytes, what) || !w_->CheckAccess(i, recv, recv_bytes, what)) {
      return Status::Internal(w_->error);
    }
    // Every rank must issue the same collectives in the same order.
    auto& order = w_->clique_collectives[size_t(fc.clique)];
    const uint64_t seq = fc.collectives++;
    if (seq < order.size()) {
      const CollSignature& first = order[seq];
      if (first.kind != kind || first.count != count || first.dtype != dtype) {
        return Status::Internal("NCCL collective order mismatch: collective #" + std::to_string(seq) + " is " +
                                Describe(kind, count, dtype) + " on rank " + std::to_string(fc.rank) + " but " +
                                Describe(first.kind, first.count, first.dtype) + " on rank " +
                                std::to_string(first.rank));
      }
    } else {
      order.push_back({kind, count, dtype, fc.rank});
    }
    FakeOp op;
    op.kind = OpKind::kNccl;
    op.what = "ncclDevKernel_" + std::string(CollectiveName(kind)) + " " + std::to_string(count) + " elements";
    op.duration = int64_t(send_bytes * n / 100 + 5);
    op.coll = CollPart{kind, c, seq, static_cast<char*>(send), static_cast<char*>(recv), count, dtype};
    ++w_->stats.nccl_collectives;
    w_->stats.nccl_elements[dtype] += int64_t(count);
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  // Symmetric memory: windows are matched across ranks by registration order.
  Result<DevPtr> MemAlloc(size_t bytes) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    FakeAlloc a;
    a.size = bytes;
    a.device = ThisThread().device;
    a.process = process_;
    a.data.reset(new char[bytes + 4096]());
    // NCCL_WIN_REQUIRED_ALIGNMENT: 4096 bytes.
    char* p = a.data.get() + (4096 - reinterpret_cast<uintptr_t>(a.data.get()) % 4096) % 4096;
    w_->allocs.emplace(reinterpret_cast<uintptr_t>(p), std::move(a));
    w_->nccl_memory.insert(reinterpret_cast<uintptr_t>(p));
    ++w_->stats.live_allocations;
    return static_cast<DevPtr>(p);
  }

  Status MemFree(DevPtr p) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    auto it = w_->allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == w_->allocs.end() || it->second.freed || w_->nccl_memory.count(it->first) == 0) {
      return Status::Internal("ncclMemFree of a pointer not from ncclMemAlloc");
    }
    it->second.freed = true;
    --w_->stats.live_allocations;
    return Status::Ok();
  }

  Result<NcclWindow> WindowRegister(NcclComm comm, DevPtr buf, size_t bytes) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int c = CommIndex(comm);
    if (c < 0) return Status::Internal("ncclCommWindowRegister: unknown communicator");
    if (w_->nccl_memory.count(reinterpret_cast<uintptr_t>(buf)) == 0) {
      return Status::Internal(
          "ncclCommWindowRegister: the buffer is not from ncclMemAlloc (symmetric windows need cuMem memory)");
    }
    const FakeAlloc* a = w_->Check(buf, bytes, "ncclCommWindowRegister");
    if (a == nullptr) return Status::Internal(w_->error);
    FakeComm& fc = w_->comms[size_t(c)];
    if (a->process != fc.process || a->device != fc.device) {
      return Status::Internal("ncclCommWindowRegister: the buffer is not on this communicator's device and process");
    }
    FakeWindow win;
    win.clique = fc.clique;
    win.rank = fc.rank;
    win.seq = fc.windows++;
    win.buf = static_cast<char*>(buf);
    win.bytes = bytes;
    win.device = a->device;
    win.process = fc.process;
    w_->windows.push_back(win);
    ++w_->stats.windows_registered;
    return reinterpret_cast<NcclWindow>(uintptr_t(w_->windows.size()));  // NOLINT(performance-no-int-to-ptr): an id
  }

  Status WindowDeregister(NcclComm comm, NcclWindow w) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int c = CommIndex(comm);
    if (c < 0) return Status::Internal("ncclCommWindowDeregister: unknown communicator");
    if (w_->comms[size_t(c)].aborted) {
      ++w_->stats.calls_after_abort;
      return Status::Internal("ncclCommWindowDeregister on a communicator that ncclCommAbort freed");
    }
    const size_t i = size_t(reinterpret_cast<uintptr_t>(w));
    if (i == 0 || i > w_->windows.size()) return Status::Internal("ncclCommWindowDeregister: unknown window");
    w_->windows[i - 1].deregistered = true;
    return Status::Ok();
  }

  Result<std::vector<DevPtr>> WindowPeerPointers(NcclWindow w, int nranks) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const size_t i = size_t(reinterpret_cast<uintptr_t>(w));
    if (i == 0 || i > w_->windows.size() || w_->windows[i - 1].deregistered) {
      return Status::Internal("ncclGetPeerPointer on a window that is not registered");
    }
    const FakeWindow mine = w_->windows[i - 1];
    std::vector<DevPtr> out;
    for (int q = 0; q < nranks; ++q) {
      const FakeWindow* found = nullptr;
      for (const FakeWindow& x : w_->windows) {
        if (x.clique == mine.clique && x.seq == mine.seq && x.rank == q && !x.deregistered) found = &x;
      }
      if (found == nullptr) {
        return Status::Internal("ncclCommWindowRegister is collective: rank " + std::to_string(q) +
                                " has not registered window #" + std::to_string(mine.seq));
      }
      if (found->bytes != mine.bytes) {
        return Status::Internal("ranks registered window #" + std::to_string(mine.seq) + " with different sizes (" +
                                std::to_string(mine.bytes) + " and " + std::to_string(found->bytes) + " bytes)");
      }
      // NCCL maps only CUDA P2P peers (its LSA team); the others get no pointer.
      const bool mapped = found->device == mine.device || w_->config.peer_access;
      out.push_back(mapped ? found->buf : nullptr);
    }
    return out;
  }

 private:
  int CommIndex(NcclComm comm) const {
    const size_t i = size_t(reinterpret_cast<uintptr_t>(comm));
    return i == 0 || i > w_->comms.size() ? -1 : int(i - 1);
  }

  // NCCL's own words for an injected failure.
  Status Injected(const char* call) const {
    const std::string& bad = w_->config.fail_nccl_in;
    if (bad.empty() || ThisThread().label.find(bad) == std::string::npos) return Status::Ok();
    return Status::Internal(std::string(call) + " failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details)");
  }

  Status P2p(bool send, DevPtr buf, size_t count, DType dtype, int peer, NcclComm comm, GpuStream s) {
    BRAID_RETURN_IF_ERROR(Injected(send ? "ncclSend" : "ncclRecv"));
    std::lock_guard<std::mutex> lock(w_->mu);
    const int c = CommIndex(comm);
    const int i = w_->StreamIndex(s, send ? "ncclSend" : "ncclRecv");
    if (c < 0 || i < 0) return Status::Internal("NCCL send/recv on an unknown communicator or stream");
    FakeComm& fc = w_->comms[size_t(c)];
    if (peer < 0 || peer >= fc.nranks || peer == fc.rank) {
      return Status::Internal(std::string(send ? "ncclSend" : "ncclRecv") + ": invalid peer " + std::to_string(peer));
    }
    const size_t bytes = count * size_t(DTypeBytes(dtype));
    if (!w_->CheckAccess(i, buf, bytes,
                         std::string(send ? "ncclSend" : "ncclRecv") + " (" + ThisThread().label + ")")) {
      return Status::Internal(w_->error);
    }
    P2pPart part;
    part.send = send;
    part.comm = c;
    part.peer = peer;
    part.seq = send ? fc.sends[peer]++ : fc.recvs[peer]++;
    part.buf = static_cast<char*>(buf);
    part.bytes = bytes;
    w_->stats.nccl_elements[dtype] += int64_t(count);
    if (send)
      ++w_->stats.nccl_sends;
    else
      ++w_->stats.nccl_recvs;
    FakeThread& t = ThisThread();
    if (t.grouping) {
      if (t.group_stream < 0) t.group_stream = i;
      t.group.emplace_back(i, part);
      return Status::Ok();
    }
    FakeOp op;
    op.kind = OpKind::kNccl;
    op.what = std::string(send ? "ncclDevKernel_SendRecv send " : "ncclDevKernel_SendRecv recv ") +
              std::to_string(bytes) + " bytes " + (send ? "to" : "from") + " rank " + std::to_string(peer);
    op.duration = int64_t(bytes / 100 + 5);
    op.p2p.push_back(part);
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  std::shared_ptr<FakeGpu::World> w_;
  int process_;
};

}  // namespace

FakeGpu::FakeGpu(FakeGpuConfig config) : world_(std::make_shared<World>(std::move(config))) {}
FakeGpu::~FakeGpu() = default;

std::shared_ptr<CudaApi> FakeGpu::cuda() { return MakeFakeCuda(world_, -1); }
std::shared_ptr<NcclApi> FakeGpu::nccl() { return std::make_shared<FakeNccl>(world_, -1); }

FakeProcess FakeGpu::NewProcess() {
  int id = 0;
  {
    std::lock_guard<std::mutex> lock(world_->mu);
    id = world_->next_process++;
  }
  return {MakeFakeCuda(world_, id), std::make_shared<FakeNccl>(world_, id)};
}
std::shared_ptr<GpuTracer> FakeGpu::tracer() { return MakeFakeTracer(world_, -1); }
std::shared_ptr<GpuTracer> FakeGpu::tracer(int device) { return MakeFakeTracer(world_, device); }
std::shared_ptr<FusedKernelApi> FakeGpu::fused() { return MakeFakeFused(world_); }
std::shared_ptr<GemmCoreApi> FakeGpu::core() { return MakeFakeGemmCore(world_); }

CudaSeams FakeGpu::Seams() { return SeamsForDevice(-1); }

CudaSeams FakeGpu::SeamsForDevice(int device) {
  CudaSeams s;
  if (device < 0) {
    s.cuda = cuda();
    s.nccl = nccl();
  } else {
    FakeProcess p = NewProcess();
    s.cuda = std::move(p.cuda);
    s.nccl = std::move(p.nccl);
  }
  s.tracer = device < 0 ? tracer() : tracer(device);
  s.fused = fused();
  s.core = core();
  auto w = world_;
  s.make_blas = [w]() -> Result<std::unique_ptr<BlasLtApi>> { return MakeFakeBlasLt(w); };
  return s;
}

FakeGpuStats FakeGpu::stats() const {
  std::lock_guard<std::mutex> lock(world_->mu);
  FakeGpuStats out = world_->stats;
  // A cudaFree that waited for its device hangs if the device still cannot
  // drain now that every thread is done with it.
  world_->Progress();
  for (auto [device, process] : world_->frees_waiting) {
    for (const FakeStream& st : world_->streams) {
      if (!st.ops.empty() && st.device == device && st.process == process) {
        ++out.frees_that_would_hang;
        break;
      }
    }
  }
  return out;
}

}  // namespace braid::cuda
