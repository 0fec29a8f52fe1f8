// CudaApi forwarded to the CUDA runtime, and to the driver for the stream
// memory operations (flags). Thin: each call is one library call checked
// with BRAID_CUDA_STATUS. The driver's entry points come through the runtime
// (cudaGetDriverEntryPointByVersion), so braid does not link libcuda and
// starts on a machine without a driver to say there is no GPU.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "braid/cuda_api.h"
#include "cuda_check.h"
#include "real/add_kernel.h"
#include "real/real_seams.h"
#include "real/runtime_stream.h"

namespace braid::cuda {

namespace {

struct DriverCalls {
  PFN_cuStreamWriteValue32_v11070 write = nullptr;
  PFN_cuStreamWaitValue32_v11070 wait = nullptr;
  PFN_cuGetErrorString_v6000 error_string = nullptr;
  Status status;
};

const DriverCalls& Driver() {
  static DriverCalls calls;
  static std::once_flag once;
  std::call_once(once, [] {
    auto get = [](const char* name, void** fn) {
      cudaDriverEntryPointQueryResult found{};
      Status s = BRAID_CUDA_STATUS(cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &found));
      if (!s.ok()) return s;
      if (found != cudaDriverEntryPointSuccess)
        return Status::Unavailable(std::string("the CUDA driver has no ") + name);
      return Status::Ok();
    };
    calls.status = get("cuStreamWriteValue32", reinterpret_cast<void**>(&calls.write));
    if (calls.status.ok()) calls.status = get("cuStreamWaitValue32", reinterpret_cast<void**>(&calls.wait));
    if (calls.status.ok()) calls.status = get("cuGetErrorString", reinterpret_cast<void**>(&calls.error_string));
  });
  return calls;
}

Status DriverStatus(const char* call, CUresult r) {
  if (r == CUDA_SUCCESS) return Status::Ok();
  const char* text = nullptr;
  if (Driver().error_string != nullptr) Driver().error_string(r, &text);
  return Status::Internal(std::string(call) +
                          " failed: " + (text != nullptr ? text : "CUDA driver error " + std::to_string(int(r))));
}
cudaEvent_t E(GpuEvent e) { return reinterpret_cast<cudaEvent_t>(e); }

class RealCuda : public CudaApi {
 public:
  Result<int> DeviceCount() override {
    int n = 0;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGetDeviceCount(&n)));
    return n;
  }
  Result<DeviceProps> Props(int device) override {
    cudaDeviceProp p{};
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaGetDeviceProperties(&p, device)));
    return DeviceProps{p.name, p.multiProcessorCount, p.major, p.minor, int64_t(p.sharedMemPerBlockOptin)};
  }
  Result<bool> CanAccessPeer(int device, int peer) override {
    int ok = 0;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaDeviceCanAccessPeer(&ok, device, peer)));
    return ok != 0;
  }
  Status SetDevice(int device) override { return BRAID_CUDA_STATUS(cudaSetDevice(device)); }
  Status EnablePeerAccess(int peer) override {
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();  // clear the sticky-free error
      return Status::Ok();
    }
    return BRAID_CUDA_STATUS(e);
  }
  Result<GpuStream> CreateStream(int priority) override {
    int least = 0, greatest = 0;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaDeviceGetStreamPriorityRange(&least, &greatest)));
    cudaStream_t s = nullptr;
    // CUDA: lower numbers are more urgent.
    BRAID_RETURN_IF_ERROR(
        BRAID_CUDA_STATUS(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority > 0 ? greatest : least)));
    return reinterpret_cast<GpuStream>(s);
  }
  Status DestroyStream(GpuStream s) override { return BRAID_CUDA_STATUS(cudaStreamDestroy(RuntimeStream(s))); }
  Result<GpuEvent> CreateEvent() override {
    cudaEvent_t e = nullptr;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)));
    return reinterpret_cast<GpuEvent>(e);
  }
  Status DestroyEvent(GpuEvent e) override { return BRAID_CUDA_STATUS(cudaEventDestroy(E(e))); }
  Status Record(GpuEvent e, GpuStream s) override { return BRAID_CUDA_STATUS(cudaEventRecord(E(e), RuntimeStream(s))); }
  Status Wait(GpuStream s, GpuEvent e) override {
    return BRAID_CUDA_STATUS(cudaStreamWaitEvent(RuntimeStream(s), E(e), 0));
  }
  Result<bool> Query(GpuStream s) override {
    const cudaError_t e = cudaStreamQuery(RuntimeStream(s));
    if (e == cudaErrorNotReady) return false;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(e));
    return true;
  }
  Result<bool> EventDone(GpuEvent ev) override {
    const cudaError_t e = cudaEventQuery(E(ev));
    if (e == cudaErrorNotReady) return false;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(e));
    return true;
  }
  Result<DevPtr> Malloc(size_t bytes) override {
    void* p = nullptr;
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(cudaMalloc(&p, bytes)));
    return p;
  }
  Status Free(DevPtr p) override { return BRAID_CUDA_STATUS(cudaFree(p)); }
  Status Upload(DevPtr dst, const void* src, size_t bytes) override {
    return BRAID_CUDA_STATUS(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  Status Download(void* dst, DevPtr src, size_t bytes) override {
    return BRAID_CUDA_STATUS(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }
  Status Copy2D(DevPtr dst, size_t dpitch, DevPtr src, size_t spitch, size_t width, size_t height,
                GpuStream s) override {
    return BRAID_CUDA_STATUS(
        cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, RuntimeStream(s)));
  }
  Status Memset(DevPtr p, int value, size_t bytes, GpuStream s) override {
    return BRAID_CUDA_STATUS(cudaMemsetAsync(p, value, bytes, RuntimeStream(s)));
  }
  Status Add(DevPtr c, DevPtr a, DevPtr b, size_t n, DType dtype, GpuStream s) override {
    const int t = dtype == DType::kFp32 ? kAddFp32 : dtype == DType::kFp16 ? kAddFp16 : kAddBf16;
    return BRAID_CUDA_STATUS(LaunchAdd(c, a, b, n, t, RuntimeStream(s)));
  }
  Status WriteFlag(DevPtr flag, uint32_t value, GpuStream s) override {
    BRAID_RETURN_IF_ERROR(Driver().status);
    return DriverStatus("cuStreamWriteValue32", Driver().write(reinterpret_cast<CUstream>(s), CUdeviceptr(flag), value,
                                                               CU_STREAM_WRITE_VALUE_DEFAULT));
  }
  Status WaitFlag(DevPtr flag, uint32_t at_least, GpuStream s) override {
    BRAID_RETURN_IF_ERROR(Driver().status);
    return DriverStatus("cuStreamWaitValue32", Driver().wait(reinterpret_cast<CUstream>(s), CUdeviceptr(flag), at_least,
                                                             CU_STREAM_WAIT_VALUE_GEQ));
  }
};

}  // namespace

std::shared_ptr<CudaApi> MakeRealCuda() { return std::make_shared<RealCuda>(); }

}  // namespace braid::cuda
