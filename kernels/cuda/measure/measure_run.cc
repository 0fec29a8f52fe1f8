// The measurement loop (braid/gpu_measure.h): every point of the plan as a
// median of timed samples, stage by stage, with progress after each point.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "braid/gpu_measure.h"
#include "braid/median.h"

namespace braid::measure {

namespace {

std::string ShapeText(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

const char* HolderText(Holder h) { return h == Holder::kCopy ? "copy" : "spin"; }

// Counts one stage's points and reports each.
class Stage {
 public:
  Stage(std::string name, int total, const ProgressFn& progress)
      : name_(std::move(name)), total_(total), progress_(progress), start_(std::chrono::steady_clock::now()) {
    Report();
  }
  void Done() {
    ++done_;
    Report();
  }
  // The failure of one point, naming the stage and the point.
  Status Fail(const std::string& point, const Status& s) const {
    const std::string text = name_ + " " + point + ": " + s.message();
    return s.code() == StatusCode::kUnavailable ? Status::Unavailable(text) : Status::Internal(text);
  }

 private:
  void Report() const {
    if (!progress_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    progress_({name_, done_, total_, elapsed});
  }
  std::string name_;
  int done_ = 0, total_;
  const ProgressFn& progress_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

Result<double> MedianOfSamples(const std::function<Result<double>()>& sample, int warmup, int iterations) {
  if (iterations < 1) return Status::Invalid("a median needs at least one timed sample");
  for (int i = 0; i < warmup; ++i) {
    BRAID_RETURN_IF_ERROR(sample().status());
  }
  std::vector<double> v;
  v.reserve(size_t(iterations));
  for (int i = 0; i < iterations; ++i) {
    BRAID_ASSIGN_OR_RETURN(auto s, sample());
    if (!std::isfinite(s) || s <= 0) {
      return Status::Internal("a sample of " + std::to_string(s) + " ns is not a positive time");
    }
    v.push_back(s);
  }
  return *Median(std::move(v));  // iterations >= 1
}

namespace {

Status MeasureGemms(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  Stage stage("gemm_bf16.csv", int(p.gemm_shapes.size()), progress);
  for (const GemmShape& s : p.gemm_shapes) {
    auto t = MedianOfSamples([&] { return d.GemmNs(s, p.gemms_per_sample); }, p.warmup, p.iterations);
    if (!t.ok()) return stage.Fail(ShapeText(s), t.status());
    m->gemm.push_back({s, *t});
    stage.Done();
  }
  return Status::Ok();
}

Status MeasureFp8Gemms(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  if (p.fp8_gemm_shapes.empty() || !d.HasFp8()) return Status::Ok();
  Stage stage("gemm_fp8.csv", int(p.fp8_gemm_shapes.size()), progress);
  for (const GemmShape& s : p.fp8_gemm_shapes) {
    auto t = MedianOfSamples([&] { return d.Fp8GemmNs(s, p.gemms_per_sample); }, p.warmup, p.iterations);
    if (!t.ok()) return stage.Fail(ShapeText(s), t.status());
    m->gemm_fp8.push_back({s, *t});
    stage.Done();
  }
  return Status::Ok();
}

Status MeasureHeld(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  const int per_shape = 1 + 2 * int(p.held_sms.size());
  Stage stage("gemm_beside_held_sms.csv", int(p.held_shapes.size()) * per_shape, progress);
  for (const GemmShape& s : p.held_shapes) {
    auto alone = MedianOfSamples([&] { return d.GemmNs(s, p.gemms_per_sample); }, p.warmup, p.iterations);
    if (!alone.ok()) return stage.Fail(ShapeText(s) + " alone", alone.status());
    stage.Done();
    for (Holder h : {Holder::kSpin, Holder::kCopy}) {
      for (int held : p.held_sms) {
        auto t = MedianOfSamples([&] { return d.GemmBesideHolderNs(s, p.gemms_per_sample, h, held); }, p.warmup,
                                 p.iterations);
        if (!t.ok()) {
          return stage.Fail(ShapeText(s) + " beside " + std::to_string(held) + " SMs (" + HolderText(h) + ")",
                            t.status());
        }
        m->held.push_back({s, h, held, *t, *alone});
        stage.Done();
      }
    }
  }
  return Status::Ok();
}

// Every shape of the plan's GEMM grids once (bf16: gemm_bf16 and the held
// shapes; FP8: gemm_fp8's, on a device with FP8). A device that cannot
// record kernels leaves a note instead: the log times nothing, and the
// files it would explain are measured all the same.
Status LogKernels(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  if (!p.log_kernels) return Status::Ok();
  std::vector<GemmShape> bf16;
  for (const auto* list : {&p.gemm_shapes, &p.held_shapes}) {
    for (const GemmShape& s : *list) {
      const bool seen = std::any_of(bf16.begin(), bf16.end(),
                                    [&](const GemmShape& o) { return o.m == s.m && o.n == s.n && o.k == s.k; });
      if (!seen) bf16.push_back(s);
    }
  }
  const bool fp8 = d.HasFp8() && !p.fp8_gemm_shapes.empty();
  Stage stage("gemm_kernels.csv", fp8 ? 2 : 1, progress);
  for (bool f : {false, true}) {
    if (f && !fp8) continue;
    auto k = d.GemmKernels(f ? p.fp8_gemm_shapes : bf16, f);
    if (!k.ok() && k.status().code() == StatusCode::kUnavailable) {
      m->kernels.clear();
      m->kernels_note = "gemm_kernels.csv not written: " + k.status().message();
      return Status::Ok();
    }
    if (!k.ok()) return stage.Fail(f ? "FP8 GEMMs" : "bf16 GEMMs", k.status());
    m->kernels.insert(m->kernels.end(), k->begin(), k->end());
    stage.Done();
  }
  return Status::Ok();
}

Status MeasureCopyBw(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  Stage stage("copy_kernel_bw.csv", int(p.copy_sms.size()), progress);
  for (int sms : p.copy_sms) {
    auto t = MedianOfSamples([&] { return d.SmCopyNs(sms, p.sm_copy_bytes); }, p.warmup, p.iterations);
    if (!t.ok()) return stage.Fail("on " + std::to_string(sms) + " SMs", t.status());
    m->copy_bw.push_back({sms, 2.0 * double(p.sm_copy_bytes) / *t});
    stage.Done();
  }
  return Status::Ok();
}

Status MeasureCopyEngine(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  Stage stage("copy_engine.csv", 3, progress);
  auto alone = MedianOfSamples([&] { return d.GemmNs(p.ce_gemm, 1); }, p.warmup, p.iterations);
  if (!alone.ok()) return stage.Fail(ShapeText(p.ce_gemm) + " alone", alone.status());
  stage.Done();
  auto beside =
      MedianOfSamples([&] { return d.GemmBesideCeCopyNs(p.ce_gemm, p.ce_copy_bytes); }, p.warmup, p.iterations);
  if (!beside.ok()) return stage.Fail(ShapeText(p.ce_gemm) + " beside the copy", beside.status());
  stage.Done();
  auto copy = MedianOfSamples([&] { return d.CeCopyNs(p.ce_copy_bytes); }, p.warmup, p.iterations);
  if (!copy.ok()) return stage.Fail("copy alone", copy.status());
  stage.Done();
  m->ce_gemm_alone_ns = *alone;
  m->ce_gemm_beside_ns = *beside;
  m->ce_copy_ns = *copy;
  m->ce_copy_gbs = 2.0 * double(p.ce_copy_bytes) / *copy;
  return Status::Ok();
}

Status MeasureGaps(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress, Measurements* m) {
  Stage stage("launch_gaps.csv", 4, progress);
  const struct {
    Launcher launcher;
    Gap gap;
    double* out;
    const char* what;
  } points[] = {
      {Launcher::kHost, Gap::kSameStream, &m->host_same_stream_ns, "same stream"},
      {Launcher::kHost, Gap::kCrossStreamEvent, &m->host_cross_stream_ns, "across streams"},
      {Launcher::kGraph, Gap::kSameStream, &m->graph_same_stream_ns, "same stream in a graph"},
      {Launcher::kGraph, Gap::kCrossStreamEvent, &m->graph_cross_stream_ns, "across streams in a graph"},
  };
  for (const auto& pt : points) {
    auto t = MedianOfSamples([&] { return d.LaunchGapNs(pt.launcher, pt.gap); }, p.gap_warmup, p.gap_iterations);
    if (!t.ok()) return stage.Fail(pt.what, t.status());
    *pt.out = *t;
    stage.Done();
  }
  return Status::Ok();
}

// The fused points on the GEMM core, planned before anything is measured:
// a device without a core kernel, or a point the core or its schedule
// refuses, ends the run in one line (Invalid) before its first sample.
Result<std::vector<CoreProbe>> PlanCoreProbes(const MeasureDevice& d, const MeasurePlan& p) {
  std::vector<CoreProbe> probes;
  if (p.fused_engine != FusedEngine::kCore || p.fused_shapes.empty()) return probes;
  auto device = d.CoreDevice();
  if (!device.ok()) return Status::Invalid("--fused-engine core: " + device.status().message());
  for (const GemmShape& s : p.fused_shapes) {
    for (int comm : p.fused_comm_sms) {
      auto probe = CoreProbeFor(s, comm, p.fused_ranks, *device);
      if (!probe.ok()) return Status::Invalid(probe.status().message());
      probes.push_back(std::move(probe).value());
    }
  }
  return probes;
}

// Each point's two halves, timed apart by the engine's own kernels; bytes
// from the transfer half's own tables (or the core's pulls).
Status MeasureFused(MeasureDevice& d, const MeasurePlan& p, const std::vector<CoreProbe>& core,
                    const ProgressFn& progress, Measurements* m) {
  Stage stage("fused_kernel.csv", int(p.fused_shapes.size() * p.fused_comm_sms.size()), progress);
  const bool on_core = p.fused_engine == FusedEngine::kCore;
  size_t point_index = 0;
  for (const GemmShape& s : p.fused_shapes) {
    for (int comm : p.fused_comm_sms) {
      const std::string point = ShapeText(s) + " on " + std::to_string(comm) + " comm SMs";
      const CoreProbe* probe = on_core ? &core.at(point_index) : nullptr;
      ++point_index;
      int64_t bytes = 0;
      if (probe != nullptr) {
        bytes = probe->bytes;
      } else {
        auto tables = FusedProbeTables(s, comm, p.fused_ranks, m->sm_count, FusedPart::kTransfer);
        if (!tables.ok()) return stage.Fail(point, tables.status());
        bytes = FusedPulledBytes(*tables);
      }
      MeasuredFusedRow row{s, comm, 0, bytes, 0, p.fused_engine};
      const struct {
        FusedPart part;
        double* out;
        const char* what;
      } halves[] = {{FusedPart::kGemm, &row.gemm_ns, " (GEMM half)"},
                    {FusedPart::kTransfer, &row.transfer_ns, " (transfer half)"}};
      for (const auto& h : halves) {
        auto t = MedianOfSamples(
            [&] {
              return probe != nullptr ? d.CoreFusedPartNs(*probe, h.part, p.fused_kernels_per_sample)
                                      : d.FusedPartNs(s, comm, p.fused_ranks, h.part, p.fused_kernels_per_sample);
            },
            p.warmup, p.iterations);
        if (!t.ok()) return stage.Fail(point + h.what, t.status());
        *h.out = *t;
      }
      m->fused.push_back(row);
      stage.Done();
    }
  }
  return Status::Ok();
}

}  // namespace

Result<double> MeasureDevice::Fp8GemmNs(const GemmShape&, int) {
  return Status::Unavailable(Name() + " has no FP8 tensor cores (compute capability 8.9 or newer)");
}

Result<std::vector<sim::MeasuredGemmKernel>> MeasureDevice::GemmKernels(const std::vector<GemmShape>&, bool) {
  return Status::Unavailable(Name() + " records no kernel launches");
}

Result<cuda::gemm::GemmDevice> MeasureDevice::CoreDevice() const {
  return Status::Unavailable(Name() + " has no GEMM core kernel");
}

Result<double> MeasureDevice::CoreFusedPartNs(const CoreProbe&, FusedPart, int) {
  return Status::Unavailable(Name() + " has no GEMM core kernel");
}

Status CheckFusedEngineOn(const MeasureDevice& device, const MeasurePlan& plan) {
  return PlanCoreProbes(device, plan).status();
}

Result<Measurements> RunMeasurements(MeasureDevice& d, const MeasurePlan& p, const ProgressFn& progress) {
  Measurements m;
  m.device = d.Name();
  m.sm_count = d.SmCount();
  BRAID_RETURN_IF_ERROR(CheckMeasurePlan(p, m.sm_count));
  BRAID_ASSIGN_OR_RETURN(const std::vector<CoreProbe> core, PlanCoreProbes(d, p));
  BRAID_RETURN_IF_ERROR(d.Prepare(p));
  BRAID_RETURN_IF_ERROR(MeasureGemms(d, p, progress, &m));
  BRAID_RETURN_IF_ERROR(MeasureFp8Gemms(d, p, progress, &m));
  BRAID_RETURN_IF_ERROR(MeasureHeld(d, p, progress, &m));
  BRAID_RETURN_IF_ERROR(LogKernels(d, p, progress, &m));
  BRAID_RETURN_IF_ERROR(MeasureCopyBw(d, p, progress, &m));
  BRAID_RETURN_IF_ERROR(MeasureCopyEngine(d, p, progress, &m));
  BRAID_RETURN_IF_ERROR(MeasureGaps(d, p, progress, &m));
  if (!p.fused_shapes.empty()) BRAID_RETURN_IF_ERROR(MeasureFused(d, p, core, progress, &m));
  return m;
}

}  // namespace braid::measure
