// Memory every rank of a run can address: a rank's buffers as every other
// rank's device sees them (peer pointers), which the fused kernel and the
// flags transport read and write directly.
//
//  - in process (the cuda backend today: ranks are threads): any device
//    allocation is shared by its address once peer access is enabled; in
//    loopback every rank is on one device and there is nothing to enable.
//  - NCCL windows (ranks as processes, or GPUs with a communicator): buffers
//    come from ncclMemAlloc, are registered as one symmetric window per
//    buffer (collective), and every rank's address comes from
//    ncclGetPeerPointer (NcclApi::WindowPeerPointers).
//
// Every call is collective: all ranks call it in the same order.
#pragma once

#include <memory>
#include <vector>

#include "braid/bootstrap.h"
#include "braid/cuda_api.h"
#include "braid/nccl_api.h"

namespace braid::cuda {

class PeerMemory {
 public:
  virtual ~PeerMemory() = default;
  // `bytes` on this rank's device that peers may address.
  virtual Result<DevPtr> Allocate(size_t bytes) = 0;
  virtual Status Free(DevPtr p) = 0;
  // For each of `mine` (this rank's buffers; in process any allocation, with
  // NCCL windows one from Allocate), every rank's address of its own
  // counterpart: result[i][q] = rank q's buffer i, as this rank addresses it;
  // null where this rank's device cannot map rank q's memory.
  virtual Result<std::vector<std::vector<DevPtr>>> PeerPointers(const std::vector<DevPtr>& mine) = 0;
  // After the communicator was aborted (a failed run): releases every buffer
  // without the collective deregistration, which the abort already dropped
  // (the communicator is gone) and the peers would never join.
  virtual void Abandon() {}
};

std::unique_ptr<PeerMemory> MakeInProcessPeerMemory(CudaApi& cuda, Bootstrap& boot, bool loopback);
std::unique_ptr<PeerMemory> MakeNcclWindowPeerMemory(NcclApi& nccl, CudaApi& cuda, NcclComm comm, int ranks);

}  // namespace braid::cuda
