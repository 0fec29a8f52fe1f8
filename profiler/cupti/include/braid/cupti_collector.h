// Collects CUPTI activity records while a cuda-backend run executes and
// turns them into braid::Events: kernels (NCCL's as comm), copies, peer
// copies, memsets, synchronizations and NVTX ranges, one lane per
// (device, stream), tagged with Braid's ids via external correlation.
//
//   CuptiCollector c(options);
//   BRAID_RETURN_IF_ERROR(c.Start());
//   CuptiCollector::PushCorrelation(step_id);  // GPU work launched now is tagged
//   launch_step();
//   CuptiCollector::PopCorrelation();
//   cudaDeviceSynchronize();   // a record flushed before its work ends is untimed
//   Status s = c.Stop();       // not ok also when records were dropped
//   std::vector<Event> events = c.TakeEvents();
//
// CUPTI activity tracing is process-wide: one collector may run at a time
// (Start on a second one fails). Start/Flush/Stop/TakeEvents need external
// synchronization (call them from one thread); the buffer callbacks CUPTI
// runs on its own threads are synchronized internally.
//
// NVTX ranges reach CUPTI only when NVTX_INJECTION64_PATH names libcupti.so
// before the process's first NVTX call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "braid/activity_converter.h"
#include "braid/event.h"
#include "braid/status.h"

namespace braid {

struct CuptiCollectorOptions {
  ConversionContext context;
  // Each activity buffer handed to CUPTI; rounded up to 8 bytes.
  size_t buffer_bytes = size_t{8} << 20;
  // CONCURRENT_KERNEL keeps kernels concurrent; KERNEL (false) serializes
  // them on the GPU, which defeats the overlap being measured.
  bool concurrent_kernels = true;
  // Enables EXTERNAL_CORRELATION and the RUNTIME and DRIVER API kinds that
  // CUPTI needs to emit its records (the API records themselves are
  // counted as ignored).
  bool external_correlation = true;
};

class CuptiCollector {
 public:
  explicit CuptiCollector(CuptiCollectorOptions options = {});
  ~CuptiCollector();  // stops if running; its status is lost, call Stop()
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  // Registers the buffer callbacks and enables the activity kinds. Without
  // a driver or GPU, CUPTI refuses and this returns that failure
  // (kUnavailable); nothing stays enabled.
  Status Start();
  // cuptiActivityFlushAll(FORCED) and drains every returned buffer into the
  // events. Not ok when a CUPTI call failed, or when records were dropped or
  // a buffer was bad since Start (the events are then incomplete; they stay
  // available).
  Status Flush();
  // Flush, then disables the kinds. Same status rules as Flush.
  Status Stop();
  bool running() const;

  // See ActivityConverter::TakeEvents.
  std::vector<Event> TakeEvents();
  // See ActivityConverter::TakeLaunches (CuptiCollectorOptions::context.keep_launches).
  std::vector<KernelLaunch> TakeLaunches();
  std::vector<std::string> LaneNames() const;
  ActivityStats stats() const;

  // Tags the GPU work the calling thread launches until the matching Pop
  // with `id` (Event::correlation of the resulting events).
  static Status PushCorrelation(uint64_t id);
  static Status PopCorrelation();
  // CUPTI's clock (ns), the one activity timestamps use: an origin for
  // ConversionContext::origin_ns.
  static Result<int64_t> Timestamp();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace braid
