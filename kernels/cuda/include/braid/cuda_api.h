// The CUDA runtime/driver calls the cuda backend makes, behind one interface
// (docs/style.md "Seams"). Code above this seam never includes a CUDA header: the
// real forwarder (kernels/cuda/real) is compiled with the toolkit, the
// checking fake (kernels/cuda/fake) runs anywhere.
//
// Threading contract: every method may be called from any thread; calls that
// take a stream act on the device the stream was created on. SetDevice binds
// the calling thread (like cudaSetDevice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid::cuda {

// Opaque handles: a real cudaStream_t / cudaEvent_t, or a fake's id.
struct StreamTag;
struct EventTag;
using GpuStream = StreamTag*;
using GpuEvent = EventTag*;
using DevPtr = void*;  // device memory (fake: host memory)

struct DeviceProps {
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  int64_t smem_optin = 0;  // shared memory one block may opt in to, bytes
};

class CudaApi {
 public:
  virtual ~CudaApi() = default;

  virtual Result<int> DeviceCount() = 0;
  virtual Result<DeviceProps> Props(int device) = 0;
  virtual Result<bool> CanAccessPeer(int device, int peer) = 0;
  virtual Status SetDevice(int device) = 0;
  // Lets the current device read and write `peer`'s memory (idempotent).
  virtual Status EnablePeerAccess(int peer) = 0;

  // `priority`: Braid's sense, higher = more urgent; clamped to the device's range.
  virtual Result<GpuStream> CreateStream(int priority) = 0;
  virtual Status DestroyStream(GpuStream s) = 0;
  virtual Result<GpuEvent> CreateEvent() = 0;
  virtual Status DestroyEvent(GpuEvent e) = 0;
  virtual Status Record(GpuEvent e, GpuStream s) = 0;
  // `s` waits for the last Record of `e` issued before this call.
  virtual Status Wait(GpuStream s, GpuEvent e) = 0;
  // True once all work issued to `s` finished. Never blocks.
  virtual Result<bool> Query(GpuStream s) = 0;
  // True once the last Record of `e` finished. Never blocks.
  virtual Result<bool> EventDone(GpuEvent e) = 0;

  virtual Result<DevPtr> Malloc(size_t bytes) = 0;  // on the current device
  virtual Status Free(DevPtr p) = 0;
  // Synchronous host <-> device copies (setup and verification only).
  virtual Status Upload(DevPtr dst, const void* src, size_t bytes) = 0;
  virtual Status Download(void* dst, DevPtr src, size_t bytes) = 0;
  // Stream-ordered device copy (any device, peers included): `height` rows of
  // `width` bytes, row i at dst + i·dpitch and src + i·spitch.
  virtual Status Copy2D(DevPtr dst, size_t dpitch, DevPtr src, size_t spitch, size_t width, size_t height,
                        GpuStream s) = 0;
  virtual Status Memset(DevPtr p, int value, size_t bytes, GpuStream s) = 0;
  // c[i] = a[i] + b[i] for n elements of `dtype` (the small add kernel); c may be a or b.
  virtual Status Add(DevPtr c, DevPtr a, DevPtr b, size_t n, DType dtype, GpuStream s) = 0;
  // Stream-ordered flags (cuStreamWriteValue32 / cuStreamWaitValue32 GEQ):
  // `flag` is a uint32 in device memory, possibly a peer's.
  virtual Status WriteFlag(DevPtr flag, uint32_t value, GpuStream s) = 0;
  virtual Status WaitFlag(DevPtr flag, uint32_t at_least, GpuStream s) = 0;
};

}  // namespace braid::cuda
