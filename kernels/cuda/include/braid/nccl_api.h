// The NCCL calls the cuda backend makes, behind one interface.
//
// Threading contract: one communicator per rank, used by one thread at a time
// (NCCL's own rule); different ranks' threads call concurrently.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "braid/cuda_api.h"
#include "braid/plan.h"

namespace braid::cuda {

struct CommTag;
using NcclComm = CommTag*;
using NcclUniqueId = std::array<uint8_t, 128>;  // ncclUniqueId's bytes

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
};

}  // namespace braid::cuda
