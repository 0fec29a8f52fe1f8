// FakeCuda: the CudaApi over FakeGpu's world. Stream work is queued and runs
// when the scheduler reaches it (at Query); host copies are immediate.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "../host/dtype_convert.h"
#include "fake_world.h"

namespace braid::cuda {

namespace {

class FakeCuda : public CudaApi {
 public:
  FakeCuda(std::shared_ptr<FakeGpu::World> w, int process) : w_(std::move(w)), process_(process) {}

  Result<int> DeviceCount() override { return w_->config.devices; }

  Result<DeviceProps> Props(int device) override {
    if (device < 0 || device >= w_->config.devices) return Status::Invalid("no device " + std::to_string(device));
    return DeviceProps{w_->config.name, w_->config.sm_count, w_->config.cc_major, w_->config.cc_minor,
                       w_->config.smem_optin};
  }

  Result<bool> CanAccessPeer(int device, int peer) override { return device != peer && w_->config.peer_access; }

  Status SetDevice(int device) override {
    if (device < 0 || device >= w_->config.devices)
      return Status::Invalid("cudaSetDevice(" + std::to_string(device) + "): invalid device ordinal");
    ThisThread().device = device;
    return Status::Ok();
  }

  Status EnablePeerAccess(int peer) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    if (!w_->config.peer_access)
      return Status::Internal("cudaDeviceEnablePeerAccess: peer access is not supported between these devices");
    w_->peer_enabled[{ThisThread().device, peer}] = true;
    return Status::Ok();
  }

  Result<GpuStream> CreateStream(int priority) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    FakeStream s;
    s.device = ThisThread().device;
    s.process = process_;
    w_->streams.push_back(std::move(s));
    ++w_->stats.streams_created;
    w_->stats.stream_priorities.push_back(priority);
    // Handles are ids, never dereferenced.
    return reinterpret_cast<GpuStream>(uintptr_t(w_->streams.size()));  // NOLINT(performance-no-int-to-ptr)
  }

  Status DestroyStream(GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cudaStreamDestroy");
    if (i < 0) return Error();
    w_->streams[size_t(i)].destroyed = true;
    return Status::Ok();
  }

  Result<GpuEvent> CreateEvent() override {
    std::lock_guard<std::mutex> lock(w_->mu);
    w_->events.push_back(0);
    return reinterpret_cast<GpuEvent>(uintptr_t(w_->events.size()));  // NOLINT(performance-no-int-to-ptr): an id
  }

  Status DestroyEvent(GpuEvent) override { return Status::Ok(); }

  Status Record(GpuEvent e, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cudaEventRecord");
    const size_t ev = EventIndex(e);
    if (i < 0 || ev == 0) return Error("cudaEventRecord on an unknown event");
    FakeOp op;
    op.kind = OpKind::kRecord;
    op.what = "event record";
    w_->Enqueue(i, std::move(op));
    w_->events[ev - 1] = w_->streams[size_t(i)].ops.back().id;
    return Status::Ok();
  }

  Status Wait(GpuStream s, GpuEvent e) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cudaStreamWaitEvent");
    const size_t ev = EventIndex(e);
    if (i < 0 || ev == 0) return Error("cudaStreamWaitEvent on an unknown event");
    if (w_->events[ev - 1] == 0) {
      // CUDA would return success and wait for nothing: a lost dependency.
      return Status::Internal(
          "stream waits on an event that was never recorded (on a GPU the wait is "
          "skipped and the dependency lost)");
    }
    FakeOp op;
    op.kind = OpKind::kWaitEvent;
    op.record = w_->events[ev - 1];
    op.what = "event wait";
    ++w_->stats.event_waits;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Result<bool> Query(GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cudaStreamQuery");
    if (i < 0) return Error();
    w_->Progress();
    if (w_->TimeOutCoreGemms()) return Error();
    if (!w_->error.empty()) return Error();
    if (w_->streams[size_t(i)].ops.empty()) return true;
    if (!w_->config.report_hangs) return false;
    return Status::Internal("would-be hang: " + w_->Blocked());
  }

  Result<bool> EventDone(GpuEvent e) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const size_t ev = EventIndex(e);
    if (ev == 0) return Error("cudaEventQuery on an unknown event");
    return w_->events[ev - 1] == 0 || w_->done_records.count(w_->events[ev - 1]) > 0;
  }

  Result<DevPtr> Malloc(size_t bytes) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    FakeAlloc a;
    a.size = bytes;
    a.device = ThisThread().device;
    a.process = process_;
    // Over-allocate so the handed-out address is 256-byte aligned like cudaMalloc's.
    a.data.reset(new char[bytes + 256]());
    char* p = a.data.get() + (256 - reinterpret_cast<uintptr_t>(a.data.get()) % 256) % 256;
    w_->allocs.emplace(reinterpret_cast<uintptr_t>(p), std::move(a));
    ++w_->stats.live_allocations;
    return static_cast<DevPtr>(p);
  }

  Status Free(DevPtr p) override {
    bool block = false;
    {
      std::lock_guard<std::mutex> lock(w_->mu);
      block = w_->config.block_frees;
    }
    // Never returns, outside the world's lock, so the other threads go on.
    if (block) {
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    std::lock_guard<std::mutex> lock(w_->mu);
    auto it = w_->allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == w_->allocs.end() || it->second.freed) return Status::Internal("cudaFree of a pointer not allocated");
    // cudaFree waits for the device to drain: a hang if it never can (the
    // other ranks' threads may still unblock it; FakeGpu::stats() decides).
    w_->Progress();
    for (const FakeStream& st : w_->streams) {
      if (!st.ops.empty() && st.device == it->second.device && st.process == process_) {
        w_->frees_waiting.emplace_back(st.device, st.process);
        break;
      }
    }
    it->second.freed = true;  // kept: queued work of an aborted run may still name it
    --w_->stats.live_allocations;
    return Status::Ok();
  }

  Status Upload(DevPtr dst, const void* src, size_t bytes) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    if (!w_->CheckReach(ThisThread().device, process_, true, dst, bytes, "cudaMemcpy host to device")) return Error();
    std::memcpy(dst, src, bytes);
    return Status::Ok();
  }

  Status Download(void* dst, DevPtr src, size_t bytes) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    w_->Progress();  // cudaMemcpy waits for the device
    if (!w_->CheckReach(ThisThread().device, process_, true, src, bytes, "cudaMemcpy device to host")) return Error();
    std::memcpy(dst, src, bytes);
    return Status::Ok();
  }

  Status Copy2D(DevPtr dst, size_t dpitch, DevPtr src, size_t spitch, size_t width, size_t height,
                GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cudaMemcpy2DAsync");
    if (i < 0) return Error();
    if (height == 0 || width == 0) return Status::Ok();
    const size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    const std::string what = "memcpy " + std::to_string(width * height) + " bytes (" + ThisThread().label + ")";
    if (!w_->CheckAccess(i, dst, dspan, what) || !w_->CheckAccess(i, src, sspan, what)) return Error();
    if (!w_->SetUpStream(i, "copy")) return Error();
    FakeOp op;
    op.what = "memcpy";
    op.duration = int64_t(width * height / 200 + 2);
    char* d = static_cast<char*>(dst);
    const char* from = static_cast<const char*>(src);
    op.apply = [=] {
      for (size_t r = 0; r < height; ++r) std::memmove(d + r * dpitch, from + r * spitch, width);
    };
    ++w_->stats.copies;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Status Memset(DevPtr p, int value, size_t bytes, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cudaMemsetAsync");
    if (i < 0) return Error();
    if (!w_->CheckAccess(i, p, bytes, "memset")) return Error();
    FakeOp op;
    op.what = "memset";
    char* d = static_cast<char*>(p);
    op.apply = [=] { std::memset(d, value, bytes); };
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Status Add(DevPtr c, DevPtr a, DevPtr b, size_t n, DType dtype, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "add kernel launch");
    if (i < 0) return Error();
    const size_t bytes = n * size_t(DTypeBytes(dtype));
    const std::string what = "add kernel (" + ThisThread().label + ")";
    if (!w_->CheckAccess(i, c, bytes, what) || !w_->CheckAccess(i, a, bytes, what) ||
        !w_->CheckAccess(i, b, bytes, what)) {
      return Error();
    }
    if (!w_->LoadKernel(i, "braid_add_kernel " + std::string(DTypeName(dtype)))) return Error();
    FakeOp op;
    op.what = "braid_add_kernel";
    op.duration = int64_t(n / 100 + 2);
    op.apply = [=] {
      for (size_t k = 0; k < n; ++k) StoreOne(dtype, LoadOne(dtype, a, k) + LoadOne(dtype, b, k), c, k);
    };
    ++w_->stats.adds;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Status WriteFlag(DevPtr flag, uint32_t value, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cuStreamWriteValue32");
    if (i < 0) return Error();
    if (!w_->CheckAccess(i, flag, sizeof(uint32_t), "flag write (" + ThisThread().label + ")")) return Error();
    if (!w_->SetUpStream(i, "stream memory operation")) return Error();
    FakeOp op;
    op.kind = OpKind::kWriteFlag;
    op.what = "flag write";
    op.flag = static_cast<uint32_t*>(flag);
    op.value = value;
    const std::string& drop = w_->config.drop_flag_writes_in;
    op.dropped = !drop.empty() && ThisThread().label.find(drop) != std::string::npos;
    ++w_->stats.flag_writes;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

  Status WaitFlag(DevPtr flag, uint32_t at_least, GpuStream s) override {
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cuStreamWaitValue32");
    if (i < 0) return Error();
    if (!w_->CheckAccess(i, flag, sizeof(uint32_t), "flag wait (" + ThisThread().label + ")")) return Error();
    if (!w_->SetUpStream(i, "stream memory operation")) return Error();
    FakeOp op;
    op.kind = OpKind::kWaitFlag;
    op.what = "flag wait";
    op.flag = static_cast<uint32_t*>(flag);
    op.value = at_least;
    ++w_->stats.flag_waits;
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

 private:
  size_t EventIndex(GpuEvent e) const {
    const size_t i = size_t(reinterpret_cast<uintptr_t>(e));
    return i <= w_->events.size() ? i : 0;
  }
  Status Error(const std::string& fallback = "fake CUDA error") {
    if (w_->error.empty()) w_->Fail(fallback);
    return Status::Internal(w_->error);
  }

  std::shared_ptr<FakeGpu::World> w_;
  int process_;
};

}  // namespace

std::shared_ptr<CudaApi> MakeFakeCuda(std::shared_ptr<FakeGpu::World> w, int process) {
  return std::make_shared<FakeCuda>(std::move(w), process);
}

}  // namespace braid::cuda
