#include "braid/cupti_collector.h"

#include <cupti_activity.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "braid/cupti_check.h"

namespace braid {

struct CuptiCollector::Impl {
  explicit Impl(CuptiCollectorOptions o) : options(std::move(o)), converter(options.context) {}

  const CuptiCollectorOptions options;
  // Guarded by g_mu (the buffer callbacks write them).
  ActivityConverter converter;
  uint64_t dropped = 0;
  uint64_t buffers_completed = 0;
  uint64_t alloc_failures = 0;
  Status first_buffer_error;
  // Touched by the controlling thread only.
  bool running = false;
  std::vector<CUpti_ActivityKind> enabled;
};

namespace {

constexpr size_t kRecordAlignment = 8;  // CUPTI's ACTIVITY_RECORD_ALIGNMENT
constexpr size_t kDefaultBufferBytes = size_t{8} << 20;

// CUPTI's buffer callbacks take no user pointer, and activity tracing is
// process-wide anyway: the running collector is published here.
std::mutex g_mu;
CuptiCollector::Impl* g_active = nullptr;  // guarded by g_mu

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  size_t bytes = kDefaultBufferBytes;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_active != nullptr && g_active->options.buffer_bytes > 0) {
      bytes = g_active->options.buffer_bytes;
    }
  }
  bytes = (bytes + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
  void* p = std::aligned_alloc(kRecordAlignment, bytes);
  if (p == nullptr) {
    // CUPTI drops records without a buffer; the dropped count reports them
    // too, this counts why.
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_active != nullptr) ++g_active->alloc_failures;
  }
  *buffer = static_cast<uint8_t*>(p);
  *size = p != nullptr ? bytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t /*size*/, size_t valid_size) {
  size_t dropped = 0;
  const bool have_dropped = cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_active != nullptr) {
      Status s = DrainBuffer(buffer, valid_size, g_active->converter);
      if (!s.ok() && g_active->first_buffer_error.ok()) g_active->first_buffer_error = std::move(s);
      if (have_dropped) g_active->dropped += dropped;
      ++g_active->buffers_completed;
    }
  }
  std::free(buffer);
}

struct KindName {
  CUpti_ActivityKind kind;
  const char* name;
};

std::vector<KindName> KindsFor(const CuptiCollectorOptions& o) {
  std::vector<KindName> kinds = {
      o.concurrent_kernels ? KindName{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"}
                           : KindName{CUPTI_ACTIVITY_KIND_KERNEL, "CUPTI_ACTIVITY_KIND_KERNEL"},
      {CUPTI_ACTIVITY_KIND_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY"},
      {CUPTI_ACTIVITY_KIND_MEMCPY2, "CUPTI_ACTIVITY_KIND_MEMCPY2"},
      {CUPTI_ACTIVITY_KIND_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET"},
      {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"},
      {CUPTI_ACTIVITY_KIND_MARKER, "CUPTI_ACTIVITY_KIND_MARKER"},
      // Maps sync records' contexts to devices.
      {CUPTI_ACTIVITY_KIND_CONTEXT, "CUPTI_ACTIVITY_KIND_CONTEXT"},
  };
  if (o.external_correlation) {
    // CUPTI emits external correlation records only alongside API records.
    kinds.push_back({CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION"});
    kinds.push_back({CUPTI_ACTIVITY_KIND_RUNTIME, "CUPTI_ACTIVITY_KIND_RUNTIME"});
    kinds.push_back({CUPTI_ACTIVITY_KIND_DRIVER, "CUPTI_ACTIVITY_KIND_DRIVER"});
  }
  return kinds;
}

// Keeps the code (kUnavailable: no driver / GPU / permission) and adds context.
Status Prefixed(const Status& s, const std::string& prefix) {
  std::string msg = prefix + s.message();
  return s.code() == StatusCode::kUnavailable ? Status::Unavailable(std::move(msg)) : Status::Internal(std::move(msg));
}

// Disables what Start enabled; the first failure is returned, the rest are
// still attempted.
Status DisableAll(CuptiCollector::Impl& impl) {
  Status first;
  for (CUpti_ActivityKind kind : impl.enabled) {
    Status s = BRAID_CUPTI_STATUS(cuptiActivityDisable(kind));
    if (!s.ok() && first.ok()) first = std::move(s);
  }
  impl.enabled.clear();
  return first;
}

void AddGlobalDropped(CuptiCollector::Impl& impl) {
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    std::lock_guard<std::mutex> lock(g_mu);
    impl.dropped += dropped;
  }
}

// Not ok when any record is known to be lost since Start.
Status LossStatus(CuptiCollector::Impl& impl) {
  std::lock_guard<std::mutex> lock(g_mu);
  const ActivityStats s = impl.converter.stats();
  if (impl.dropped == 0 && impl.alloc_failures == 0 && s.bad_buffers == 0) return Status::Ok();
  std::string msg = "CUPTI activity records were lost, the events are incomplete: " + std::to_string(impl.dropped) +
                    " dropped for lack of buffer space, " + std::to_string(impl.alloc_failures) +
                    " buffer allocations failed, " + std::to_string(s.bad_buffers) + " buffers unreadable";
  if (!impl.first_buffer_error.ok()) msg += " (" + impl.first_buffer_error.message() + ")";
  return Status::Internal(std::move(msg));
}

}  // namespace

CuptiCollector::CuptiCollector(CuptiCollectorOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

CuptiCollector::~CuptiCollector() {
  if (impl_->running) (void)Stop();
}

Status CuptiCollector::Start() {
  if (impl_->running) return Status::Invalid("CuptiCollector::Start: already running");
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_active != nullptr) {
      return Status::Unavailable("CuptiCollector::Start: another collector is running (CUPTI tracing is process-wide)");
    }
    g_active = impl_.get();
  }
  Status s = BRAID_CUPTI_STATUS(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted));
  if (s.ok()) {
    for (const KindName& k : KindsFor(impl_->options)) {
      const CUptiResult r = cuptiActivityEnable(k.kind);
      if (r != CUPTI_SUCCESS) {
        s = CuptiError((std::string("cuptiActivityEnable(") + k.name + ")").c_str(), r, BRAID_SOURCE_FILE, __LINE__);
        break;
      }
      impl_->enabled.push_back(k.kind);
    }
  }
  if (!s.ok()) {
    (void)DisableAll(*impl_);  // best effort; the first failure is the news
    std::lock_guard<std::mutex> lock(g_mu);
    g_active = nullptr;
    return Prefixed(s, "cannot start CUPTI activity tracing (no CUDA driver or GPU?): ");
  }
  impl_->running = true;
  return Status::Ok();
}

Status CuptiCollector::Flush() {
  if (!impl_->running) return Status::Invalid("CuptiCollector::Flush: not running");
  Status s = BRAID_CUPTI_STATUS(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  AddGlobalDropped(*impl_);
  if (!s.ok()) return s;
  return LossStatus(*impl_);
}

Status CuptiCollector::Stop() {
  if (!impl_->running) return Status::Ok();
  // Disable first so that nothing lands after the final flush.
  Status s = DisableAll(*impl_);
  Status f = BRAID_CUPTI_STATUS(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  if (s.ok()) s = std::move(f);
  AddGlobalDropped(*impl_);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_active = nullptr;
  }
  impl_->running = false;
  if (!s.ok()) return s;
  return LossStatus(*impl_);
}

bool CuptiCollector::running() const { return impl_->running; }

std::vector<Event> CuptiCollector::TakeEvents() {
  std::lock_guard<std::mutex> lock(g_mu);
  return impl_->converter.TakeEvents();
}

std::vector<KernelLaunch> CuptiCollector::TakeLaunches() {
  std::lock_guard<std::mutex> lock(g_mu);
  return impl_->converter.TakeLaunches();
}

std::vector<std::string> CuptiCollector::LaneNames() const {
  std::lock_guard<std::mutex> lock(g_mu);
  return impl_->converter.lane_names();
}

ActivityStats CuptiCollector::stats() const {
  std::lock_guard<std::mutex> lock(g_mu);
  ActivityStats s = impl_->converter.stats();
  s.dropped_records = impl_->dropped;
  s.buffers_completed = impl_->buffers_completed;
  s.buffer_alloc_failures = impl_->alloc_failures;
  return s;
}

Status CuptiCollector::PushCorrelation(uint64_t id) {
  return BRAID_CUPTI_STATUS(cuptiActivityPushExternalCorrelationId(kBraidCorrelationKind, id));
}

Status CuptiCollector::PopCorrelation() {
  uint64_t last = 0;
  return BRAID_CUPTI_STATUS(cuptiActivityPopExternalCorrelationId(kBraidCorrelationKind, &last));
}

Result<int64_t> CuptiCollector::Timestamp() {
  uint64_t t = 0;
  Status s = BRAID_CUPTI_STATUS(cuptiGetTimestamp(&t));
  if (!s.ok()) return s;
  return static_cast<int64_t>(t);
}

}  // namespace braid
