// FakeBlasLt (a reference matmul on host memory, with access checks) and
// FakeTracer (events from the ops the fake world ran).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "../host/dtype_convert.h"
#include "fake_world.h"

namespace braid::cuda {

namespace {

class FakeBlasLt : public BlasLtApi {
 public:
  explicit FakeBlasLt(std::shared_ptr<FakeGpu::World> w) : w_(std::move(w)) {}

  Status Matmul(const MatmulArgs& m, GpuStream s) override {
    BlockIfAsked();
    std::lock_guard<std::mutex> lock(w_->mu);
    const int i = w_->StreamIndex(s, "cublasLtMatmul");
    if (i < 0) return Status::Internal(w_->error);
    if (m.m < 0 || m.n < 0 || m.k < 0 || m.lda < m.k || m.ldb < m.n || m.ldc < m.n) {
      return Status::Internal("cublasLtMatmul: invalid shape or leading dimension");
    }
    if (m.sm_count_target < 0 || m.sm_count_target > w_->config.sm_count) {
      return Status::Internal("cublasLtMatmul: SM_COUNT_TARGET " + std::to_string(m.sm_count_target) + " out of range");
    }
    const size_t e = size_t(DTypeBytes(m.dtype));
    const std::string what = "matmul (" + ThisThread().label + ")";
    auto span = [e](int64_t rows, int64_t cols, int64_t ld) {
      return rows == 0 ? 0 : size_t((rows - 1) * ld + cols) * e;
    };
    if (!w_->CheckAccess(i, m.a, span(m.m, m.k, m.lda), what) ||
        !w_->CheckAccess(i, m.b, span(m.k, m.n, m.ldb), what) ||
        !w_->CheckAccess(i, m.c, span(m.m, m.n, m.ldc), what)) {
      return Status::Internal(w_->error);
    }
    const std::string& bad = w_->config.corrupt_matmul_in;
    const bool corrupt = !bad.empty() && ThisThread().label.find(bad) != std::string::npos;
    const std::string kernel = "matmul " + std::to_string(m.m) + "x" + std::to_string(m.n) + "x" + std::to_string(m.k) +
                               " " + std::string(DTypeName(m.dtype)) + " sms=" + std::to_string(m.sm_count_target);
    if (!w_->LoadKernel(i, kernel)) return Status::Internal(w_->error);
    FakeOp op;
    op.what = "sm90_xmma_gemm (fake)";
    const int sms = m.sm_count_target > 0 ? m.sm_count_target : w_->config.sm_count;
    op.duration = int64_t(2.0 * double(m.m) * double(m.n) * double(m.k) / 2000.0 * w_->config.sm_count / sms) + 3;
    op.apply = [m, corrupt] {
      std::vector<float> row(size_t(m.n));
      for (int64_t r = 0; r < m.m; ++r) {
        std::fill(row.begin(), row.end(), 0.0f);
        for (int64_t p = 0; p < m.k; ++p) {
          const float av = LoadOne(m.dtype, m.a, size_t(r * m.lda + p));
          for (int64_t c = 0; c < m.n; ++c) row[size_t(c)] += av * LoadOne(m.dtype, m.b, size_t(p * m.ldb + c));
        }
        if (corrupt && r == 0 && m.n > 0) row[0] += 1.0f;
        for (int64_t c = 0; c < m.n; ++c) StoreOne(m.dtype, row[size_t(c)], m.c, size_t(r * m.ldc + c));
      }
    };
    ++w_->stats.matmuls;
    w_->stats.sm_count_targets.push_back(m.sm_count_target);
    w_->Enqueue(i, std::move(op));
    return Status::Ok();
  }

 private:
  // config.block_thread_in: this call never returns (outside the world's
  // lock, so the other threads go on until they wait for this one).
  void BlockIfAsked() {
    std::string block;
    {
      std::lock_guard<std::mutex> lock(w_->mu);
      block = w_->config.block_thread_in;
    }
    if (block.empty() || ThisThread().label.find(block) == std::string::npos) return;
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }

  std::shared_ptr<FakeGpu::World> w_;
};

// device < 0: every device's work; else that device's only.
class FakeTracer : public GpuTracer {
 public:
  FakeTracer(std::shared_ptr<FakeGpu::World> w, int device) : w_(std::move(w)), device_(device) {}
  Status Start() override {
    std::lock_guard<std::mutex> lock(w_->mu);
    bool& on = device_ < 0 ? w_->tracing : w_->device_tracing[device_];
    if (on) return Status::Internal("tracer already started");
    on = true;
    return Status::Ok();
  }
  Status PushStep(uint64_t correlation, std::string_view name) override {
    FakeThread& t = ThisThread();
    if (t.correlation >= 0) return Status::Internal("PushStep inside another step");
    t.correlation = int64_t(correlation);
    t.label = std::string(name);
    return Status::Ok();
  }
  Status PopStep() override {
    FakeThread& t = ThisThread();
    if (t.correlation < 0) return Status::Internal("PopStep without PushStep");
    t.correlation = -1;
    t.label.clear();
    return Status::Ok();
  }
  Status Stop() override {
    std::lock_guard<std::mutex> lock(w_->mu);
    w_->Progress();
    (device_ < 0 ? w_->tracing : w_->device_tracing[device_]) = false;
    return Status::Ok();
  }
  std::vector<Event> TakeEvents() override {
    std::lock_guard<std::mutex> lock(w_->mu);
    return std::move(device_ < 0 ? w_->trace : w_->device_trace[device_]);
  }

 private:
  std::shared_ptr<FakeGpu::World> w_;
  int device_;
};

}  // namespace

std::unique_ptr<BlasLtApi> MakeFakeBlasLt(std::shared_ptr<FakeGpu::World> w) {
  return std::make_unique<FakeBlasLt>(std::move(w));
}

std::shared_ptr<GpuTracer> MakeFakeTracer(std::shared_ptr<FakeGpu::World> w, int device) {
  return std::make_shared<FakeTracer>(std::move(w), device);
}

}  // namespace braid::cuda
