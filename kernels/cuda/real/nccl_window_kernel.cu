// Peer addresses of an NCCL 2.28 symmetric window: ncclGetPeerPointer (world
// rank -> the rank's mapping inside the NVLink/P2P "LSA" team, the same
// address ncclGetLsaPointer gives for its LSA rank) can only run on the
// device, so one thread fetches them all and the host copies them back, as
// PyTorch's NCCL symmetric memory does. Never run on a GPU here.
#include <nccl.h>
#include <nccl_device.h>

#include "real/nccl_window_kernel.h"

namespace braid::cuda {

namespace {

__global__ void PeerPointersKernel(ncclWindow_t w, int nranks, void** out) {
  for (int q = int(threadIdx.x); q < nranks; q += int(blockDim.x)) out[q] = ncclGetPeerPointer(w, 0, q);
}

}  // namespace

cudaError_t FetchWindowPeerPointers(void* window, int nranks, void** out_host) {
  void** dev = nullptr;
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&dev), sizeof(void*) * size_t(nranks));
  if (e != cudaSuccess) return e;
  PeerPointersKernel<<<1, 32>>>(static_cast<ncclWindow_t>(window), nranks, dev);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(out_host, dev, sizeof(void*) * size_t(nranks), cudaMemcpyDeviceToHost);
  const cudaError_t freed = cudaFree(dev);
  return e != cudaSuccess ? e : freed;
}

}  // namespace braid::cuda
