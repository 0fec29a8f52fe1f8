// The NCCL calls the cuda backend makes, behind one interface.
//
// Threading contract: one communicator per rank, used by one thread at a time
// (NCCL's own rule); different ranks' threads call concurrently.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "braid/cuda_api.h"
#include "braid/plan.h"

namespace braid::cuda {

struct CommTag;
using NcclComm = CommTag*;
using NcclUniqueId = std::array<uint8_t, 128>;  // ncclUniqueId's bytes
struct WindowTag;
using NcclWindow = WindowTag*;  // ncclWindow_t

// ncclConfig_t's CTA limits: the comm SM budget (0 = NCCL's default).
struct NcclCommConfig {
  int min_ctas = 0;
  int max_ctas = 0;
};

class NcclApi {
 public:
  virtual ~NcclApi() = default;
  virtual Result<NcclUniqueId> GetUniqueId() = 0;
  // Collective over `nranks` callers sharing `id` (on the current device).
  virtual Result<NcclComm> CommInitRank(int nranks, const NcclUniqueId& id, int rank, const NcclCommConfig& config) = 0;
  virtual Status CommDestroy(NcclComm comm) = 0;
  // Stops every operation in flight on `comm` (the watchdog's way out of a hang).
  virtual Status CommAbort(NcclComm comm) = 0;

  // Sends and receives between GroupStart and GroupEnd progress together.
  virtual Status GroupStart() = 0;
  virtual Status GroupEnd() = 0;
  virtual Status Send(DevPtr buf, size_t count, DType dtype, int peer, NcclComm comm, GpuStream s) = 0;
  virtual Status Recv(DevPtr buf, size_t count, DType dtype, int peer, NcclComm comm, GpuStream s) = 0;
  // `count` per rank: all_gather recv = nranks·count; reduce_scatter send =
  // nranks·count; all_reduce send = recv = count (sum).
  virtual Status Collective(CollectiveKind kind, DevPtr send, DevPtr recv, size_t count, DType dtype, NcclComm comm,
                            GpuStream s) = 0;

  // NCCL 2.28 symmetric memory (braid/peer_memory.h). Implementations that
  // lack it keep these defaults, which say so.
  // ncclMemAlloc / ncclMemFree on the current device.
  virtual Result<DevPtr> MemAlloc(size_t bytes);
  virtual Status MemFree(DevPtr p);
  // ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC): collective over
  // `comm`, every rank the same size; `buf` from MemAlloc.
  virtual Result<NcclWindow> WindowRegister(NcclComm comm, DevPtr buf, size_t bytes);
  virtual Status WindowDeregister(NcclComm comm, NcclWindow w);
  // Every rank's base address of `w` as this rank's device addresses it
  // (ncclGetPeerPointer, from a one-thread kernel); index = rank. Null for a
  // rank NCCL cannot map here (outside this rank's NVLink/P2P "LSA" team).
  virtual Result<std::vector<DevPtr>> WindowPeerPointers(NcclWindow w, int nranks);
};

}  // namespace braid::cuda
