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
    const bool fp8 = IsFp8(m.dtype);
    // FP8: B is stored transposed (n×k), so its rows are k long.
    if (m.m < 0 || m.n < 0 || m.k < 0 || m.lda < m.k || m.ldb < (fp8 ? m.k : m.n) || m.ldc < m.n) {
      return Status::Internal("cublasLtMatmul: invalid shape or leading dimension");
    }
    if (fp8) {
      // What cuBLASLt would answer CUBLAS_STATUS_NOT_SUPPORTED / INVALID_VALUE to.
      const Status rules = CheckFp8Matmul(m);
      if (!rules.ok()) return Status::Internal("cublasLtMatmul: " + rules.message());
    }
    if (m.sm_count_target < 0 || m.sm_count_target > w_->config.sm_count) {
      return Status::Internal("cublasLtMatmul: SM_COUNT_TARGET " + std::to_string(m.sm_count_target) + " out of range");
    }
    const DType b_type = fp8 ? m.fp8.b : m.dtype;
    const DType c_type = fp8 ? DType::kBf16 : m.dtype;
    const std::string what = "matmul (" + ThisThread().label + ")";
    auto span = [](int64_t rows, int64_t cols, int64_t ld, DType t) {
      return rows == 0 ? 0 : size_t((rows - 1) * ld + cols) * size_t(DTypeBytes(t));
    };
    if (!w_->CheckAccess(i, m.a, span(m.m, m.k, m.lda, m.dtype), what + " A") ||
        !w_->CheckAccess(i, m.b, fp8 ? span(m.n, m.k, m.ldb, b_type) : span(m.k, m.n, m.ldb, b_type), what + " B") ||
        !w_->CheckAccess(i, m.c, span(m.m, m.n, m.ldc, c_type), what + " C")) {
      return Status::Internal(w_->error);
    }
    if (fp8 && (!w_->CheckAccess(i, m.fp8.a_scale, sizeof(float), what + " A_SCALE_POINTER") ||
                !w_->CheckAccess(i, m.fp8.b_scale, sizeof(float), what + " B_SCALE_POINTER"))) {
      return Status::Internal(w_->error);
    }
    const std::string& bad = w_->config.corrupt_matmul_in;
    const bool corrupt = !bad.empty() && ThisThread().label.find(bad) != std::string::npos;
    const std::string kernel = "matmul " + std::to_string(m.m) + "x" + std::to_string(m.n) + "x" + std::to_string(m.k) +
                               " " + std::string(DTypeName(m.dtype)) +
                               (fp8 ? "x" + std::string(DTypeName(b_type)) : std::string()) +
                               " sms=" + std::to_string(m.sm_count_target);
    if (!w_->LoadKernel(i, kernel)) return Status::Internal(w_->error);
    FakeOp op;
    op.what = "sm90_xmma_gemm (fake)";
    const int sms = m.sm_count_target > 0 ? m.sm_count_target : w_->config.sm_count;
    op.duration = int64_t(2.0 * double(m.m) * double(m.n) * double(m.k) / 2000.0 * w_->config.sm_count / sms) + 3;
    op.apply = [m, corrupt, fp8, b_type, c_type] {
      // FP8: the codes' exact values, fp32 sums, then × a_scale·b_scale as
      // cuBLASLt's epilogue applies them (read when the matmul runs, as the
      // GPU reads them), rounded to bf16.
      const float scale = fp8 ? LoadOne(DType::kFp32, m.fp8.a_scale, 0) * LoadOne(DType::kFp32, m.fp8.b_scale, 0) : 1;
      auto b_at = [&](int64_t p, int64_t c) {
        return LoadOne(b_type, m.b, size_t(fp8 ? c * m.ldb + p : p * m.ldb + c));
      };
      std::vector<float> row(size_t(m.n));
      for (int64_t r = 0; r < m.m; ++r) {
        std::fill(row.begin(), row.end(), 0.0f);
        for (int64_t p = 0; p < m.k; ++p) {
          const float av = LoadOne(m.dtype, m.a, size_t(r * m.lda + p));
          for (int64_t c = 0; c < m.n; ++c) row[size_t(c)] += av * b_at(p, c);
        }
        for (float& v : row) v *= scale;
        if (corrupt && r == 0 && m.n > 0) row[0] += 1.0f;
        // beta = 1: C's old value in fp32 plus the product, rounded once.
        if (m.accumulate) {
          for (int64_t c = 0; c < m.n; ++c) row[size_t(c)] += LoadOne(c_type, m.c, size_t(r * m.ldc + c));
        }
        for (int64_t c = 0; c < m.n; ++c) StoreOne(c_type, row[size_t(c)], m.c, size_t(r * m.ldc + c));
      }
    };
    ++w_->stats.matmuls;
    if (fp8) ++w_->stats.fp8_matmuls;
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
