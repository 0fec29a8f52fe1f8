#include "braid/peer_memory.h"

#include <cstring>
#include <map>

namespace braid::cuda {

namespace {

Bytes Pack(const std::vector<DevPtr>& ptrs) {
  Bytes b(ptrs.size() * sizeof(uint64_t));
  for (size_t i = 0; i < ptrs.size(); ++i) {
    const uint64_t v = reinterpret_cast<uintptr_t>(ptrs[i]);
    std::memcpy(b.data() + i * sizeof v, &v, sizeof v);
  }
  return b;
}

class InProcessPeerMemory : public PeerMemory {
 public:
  InProcessPeerMemory(CudaApi& cuda, Bootstrap& boot, bool loopback) : cuda_(cuda), boot_(boot), loopback_(loopback) {}

  Result<DevPtr> Allocate(size_t bytes) override { return cuda_.Malloc(bytes); }
  Status Free(DevPtr p) override { return cuda_.Free(p); }

  Result<std::vector<std::vector<DevPtr>>> PeerPointers(const std::vector<DevPtr>& mine) override {
    if (!loopback_ && !enabled_) {
      for (int q = 0; q < boot_.size(); ++q) {
        if (q != boot_.rank()) BRAID_RETURN_IF_ERROR(cuda_.EnablePeerAccess(q));
      }
      enabled_ = true;
    }
    // Threads of one process: a device address means the same to every rank.
    BRAID_ASSIGN_OR_RETURN(auto all, boot_.AllGather(Pack(mine)));
    std::vector<std::vector<DevPtr>> out(mine.size());
    for (size_t i = 0; i < mine.size(); ++i) {
      for (const Bytes& b : all) {
        if (b.size() != mine.size() * sizeof(uint64_t)) {
          return Status::Internal("peer memory: ranks exchanged different numbers of buffers");
        }
        uint64_t v = 0;
        std::memcpy(&v, b.data() + i * sizeof v, sizeof v);
        out[i].push_back(reinterpret_cast<DevPtr>(uintptr_t(v)));  // NOLINT(performance-no-int-to-ptr): an address
      }
    }
    return out;
  }

 private:
  CudaApi& cuda_;
  Bootstrap& boot_;
  bool loopback_;
  bool enabled_ = false;
};

class NcclWindowPeerMemory : public PeerMemory {
 public:
  NcclWindowPeerMemory(NcclApi& nccl, CudaApi& cuda, NcclComm comm, int ranks)
      : nccl_(nccl), cuda_(cuda), comm_(comm), ranks_(ranks) {}
  ~NcclWindowPeerMemory() override {
    for (auto& [p, w] : windows_) {
      (void)nccl_.WindowDeregister(comm_, w);
      (void)nccl_.MemFree(p);
    }
  }

  Result<DevPtr> Allocate(size_t bytes) override {
    BRAID_ASSIGN_OR_RETURN(auto p, nccl_.MemAlloc(bytes));
    auto w = nccl_.WindowRegister(comm_, p, bytes);
    if (!w.ok()) {
      (void)nccl_.MemFree(p);
      return w.status();
    }
    windows_[p] = *w;
    return p;
  }

  Status Free(DevPtr p) override {
    auto it = windows_.find(p);
    if (it == windows_.end()) return Status::Internal("peer memory: Free of a buffer not from Allocate");
    const Status dereg = nccl_.WindowDeregister(comm_, it->second);
    windows_.erase(it);
    const Status freed = nccl_.MemFree(p);
    return dereg.ok() ? freed : dereg;
  }

  void Abandon() override {
    for (auto& [p, w] : windows_) (void)nccl_.MemFree(p);
    windows_.clear();
  }

  Result<std::vector<std::vector<DevPtr>>> PeerPointers(const std::vector<DevPtr>& mine) override {
    (void)cuda_;
    std::vector<std::vector<DevPtr>> out;
    for (DevPtr p : mine) {
      auto it = windows_.find(p);
      if (it == windows_.end()) {
        return Status::Internal("peer memory: a buffer not from Allocate has no NCCL window to map");
      }
      auto peers = nccl_.WindowPeerPointers(it->second, ranks_);
      BRAID_RETURN_IF_ERROR(peers.status());
      out.push_back(std::move(peers).value());
    }
    return out;
  }

 private:
  NcclApi& nccl_;
  CudaApi& cuda_;
  NcclComm comm_;
  int ranks_;
  std::map<DevPtr, NcclWindow> windows_;
};

}  // namespace

std::unique_ptr<PeerMemory> MakeInProcessPeerMemory(CudaApi& cuda, Bootstrap& boot, bool loopback) {
  return std::make_unique<InProcessPeerMemory>(cuda, boot, loopback);
}

std::unique_ptr<PeerMemory> MakeNcclWindowPeerMemory(NcclApi& nccl, CudaApi& cuda, NcclComm comm, int ranks) {
  return std::make_unique<NcclWindowPeerMemory>(nccl, cuda, comm, ranks);
}

}  // namespace braid::cuda
