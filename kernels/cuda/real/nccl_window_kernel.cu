// Peer addresses of an NCCL 2.28 symmetric window: ncclGetPeerPointer (world
// rank -> the rank's mapping inside the NVLink/P2P "LSA" team) can only run
// on the device, so one thread fetches them all and the host copies them
// back, as PyTorch's NCCL symmetric memory does. Never run on a GPU here.
//
// ncclGetPeerPointer does no range check: for a peer outside the LSA team it
// computes an address that maps nothing. 2.28 has no host query of the team,
// but ncclGetPeerPointer(w, 0, q) equals ncclGetLsaPointer(w, 0, q) for
// every q exactly when this rank's LSA rank is its world rank, i.e. its team
// starts at world rank 0; otherwise only its own pointer is kept. (A team
// that starts at 0 but ends early is seen by the ranks beyond it, and the
// backend agrees on the verdict over all ranks.)
#include <nccl.h>
#include <nccl_device.h>

#include "real/nccl_window_kernel.h"

namespace braid::cuda {

namespace {

struct PeerPointers {
  void* local;
  int team_from_rank0;
};

__global__ void PeerPointersKernel(ncclWindow_t w, int nranks, void** out, PeerPointers* info) {
  if (threadIdx.x != 0) return;
  info->local = ncclGetLocalPointer(w, 0);
  int aligned = 1;
  for (int q = 0; q < nranks; ++q) {
    out[q] = ncclGetPeerPointer(w, 0, q);
    if (out[q] != ncclGetLsaPointer(w, 0, q)) aligned = 0;
  }
  info->team_from_rank0 = aligned;
}

}  // namespace

cudaError_t FetchWindowPeerPointers(void* window, int nranks, void** out_host) {
  char* dev = nullptr;
  const size_t ptr_bytes = sizeof(void*) * size_t(nranks);
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&dev), ptr_bytes + sizeof(PeerPointers));
  if (e != cudaSuccess) return e;
  PeerPointers* info = reinterpret_cast<PeerPointers*>(dev + ptr_bytes);
  PeerPointersKernel<<<1, 32>>>(static_cast<ncclWindow_t>(window), nranks, reinterpret_cast<void**>(dev), info);
  PeerPointers host{};
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(out_host, dev, ptr_bytes, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(&host, info, sizeof host, cudaMemcpyDeviceToHost);
  const cudaError_t freed = cudaFree(dev);
  if (e != cudaSuccess) return e;
  if (host.team_from_rank0 == 0) {
    for (int q = 0; q < nranks; ++q) {
      if (out_host[q] != host.local) out_host[q] = nullptr;
    }
  }
  return freed;
}

}  // namespace braid::cuda
