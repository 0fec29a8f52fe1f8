// FakeMeasureDevice (braid/gpu_measure_fake.h): the sim's models as a GPU.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "braid/gpu_measure_fake.h"
#include "braid/sim_models.h"

namespace braid::measure {

FakeMeasureDevice::FakeMeasureDevice(GpuSpec truth, std::string name, double noise)
    : truth_(std::move(truth)), name_(std::move(name)), noise_(noise) {
  // An H100's opt-in shared memory per block (227 KiB).
  core_device_ = cuda::gemm::GemmDevice{cuda::gemm::GemmArch::kSm90a, truth_.sm_count, 232448};
}

Result<cuda::gemm::GemmDevice> FakeMeasureDevice::CoreDevice() const {
  if (!core_device_) return MeasureDevice::CoreDevice();
  return *core_device_;
}

void FakeMeasureDevice::FailAtSample(int n, Status status) {
  fail_at_ = n;
  fail_status_ = std::move(status);
}

Status FakeMeasureDevice::Prepare(const MeasurePlan& plan) {
  std::vector<GemmShape> all = plan.gemm_shapes;
  all.insert(all.end(), plan.held_shapes.begin(), plan.held_shapes.end());
  all.insert(all.end(), plan.fp8_gemm_shapes.begin(), plan.fp8_gemm_shapes.end());
  all.push_back(plan.ce_gemm);
  all.insert(all.end(), plan.fused_shapes.begin(), plan.fused_shapes.end());
  for (const GemmShape& s : all) {
    max_a_ = std::max(max_a_, s.m * s.k);
    max_b_ = std::max(max_b_, s.k * s.n);
    max_c_ = std::max(max_c_, s.m * s.n);
  }
  max_sm_copy_ = plan.sm_copy_bytes;
  max_ce_copy_ = plan.ce_copy_bytes;
  prepared_ = true;
  return Status::Ok();
}

Result<double> FakeMeasureDevice::Sample(double ns, double busy_ns) {
  const int i = samples_++;
  if (!prepared_) return Status::Internal("fake measure device: a sample before Prepare");
  if (i == fail_at_) return fail_status_;
  device_ns_ += busy_ns < 0 ? ns : busy_ns;
  // A fixed sequence in [-1, 1]: no random engine, the same on every machine.
  const double u = double((i * 7919) % 101) / 50.0 - 1.0;
  const double outlier = i % 5 == 4 ? 3.0 : 1.0;
  return ns * (1 + noise_ * u) * outlier;
}

Status FakeMeasureDevice::CheckGemm(const GemmShape& s, int count) const {
  if (count < 1) return Status::Internal("fake measure device: a graph of " + std::to_string(count) + " GEMMs");
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.m * s.k > max_a_ || s.k * s.n > max_b_ || s.m * s.n > max_c_) {
    return Status::Internal("fake measure device: a GEMM larger than Prepare allocated");
  }
  return Status::Ok();
}

Result<double> FakeMeasureDevice::GemmNs(const GemmShape& s, int count) {
  BRAID_RETURN_IF_ERROR(CheckGemm(s, count));
  const double ns = sim::GemmTimeNs(truth_, s.m, s.n, s.k, DType::kBf16);
  return Sample(ns, ns * count);
}

Result<double> FakeMeasureDevice::Fp8GemmNs(const GemmShape& s, int count) {
  if (!HasFp8()) return MeasureDevice::Fp8GemmNs(s, count);
  BRAID_RETURN_IF_ERROR(CheckGemm(s, count));
  if (s.m % 16 != 0 || s.n % 16 != 0 || s.k % 16 != 0) {
    return Status::Internal("fake measure device: an FP8 GEMM whose dims are not multiples of 16");
  }
  const double ns = sim::GemmTimeNs(truth_, s.m, s.n, s.k, DType::kFp8E4m3);
  return Sample(ns, ns * count);
}

Result<std::vector<sim::MeasuredGemmKernel>> FakeMeasureDevice::GemmKernels(const std::vector<GemmShape>& shapes,
                                                                            bool fp8) {
  if (!prepared_) return Status::Internal("fake measure device: kernels logged before Prepare");
  if (!kernel_log_) return Status::Unavailable("CUPTI activity tracing is not available (fake)");
  if (fp8 && !HasFp8()) return MeasureDevice::GemmKernels(shapes, fp8);
  std::vector<sim::MeasuredGemmKernel> out;
  for (const GemmShape& s : shapes) {
    BRAID_RETURN_IF_ERROR(CheckGemm(s, 1));
    const sim::GemmCost c = sim::GemmCostOf(truth_, s.m, s.n, s.k, fp8 ? DType::kFp8E4m3 : DType::kBf16);
    sim::MeasuredGemmKernel k;
    k.m = s.m, k.n = s.n, k.k = s.k, k.fp8 = fp8;
    k.kernel = "nvjet_sm90_tst_" + std::to_string(c.tile_m) + "x" + std::to_string(c.tile_n) + "_64x4_1x1_h_bz_NNT";
    k.grid_ctas = c.stream_k ? c.grid_sms : c.tiles;
    k.block_threads = 384;
    k.registers = 168;
    k.shared_bytes = 200 << 10;
    out.push_back(k);
    if (c.split_k > 1) {
      sim::MeasuredGemmKernel reduce = k;
      reduce.kernel = "splitKreduce_kernel";
      reduce.grid_ctas = std::max<int64_t>(1, s.m * s.n / 4096);
      reduce.block_threads = 256;
      reduce.registers = 32;
      reduce.shared_bytes = 0;
      out.push_back(reduce);
    }
    ++logged_shapes_;
  }
  return out;
}

Result<double> FakeMeasureDevice::GemmBesideHolderNs(const GemmShape& s, int count, Holder holder, int held_sms) {
  BRAID_RETURN_IF_ERROR(CheckGemm(s, count));
  if (held_sms < 0 || held_sms >= truth_.sm_count) {
    return Status::Internal("fake measure device: " + std::to_string(held_sms) + " held SMs of " +
                            std::to_string(truth_.sm_count));
  }
  const double ns =
      held_sms == 0 ? sim::GemmTimeNs(truth_, s.m, s.n, s.k, DType::kBf16)
                    : sim::GemmBesideHeldSmsNs(truth_, s.m, s.n, s.k, DType::kBf16, held_sms, holder == Holder::kCopy);
  return Sample(ns, ns * count);
}

Result<double> FakeMeasureDevice::SmCopyNs(int sms, int64_t bytes) {
  if (sms < 1 || sms > truth_.sm_count || bytes < 1 || bytes > max_sm_copy_) {
    return Status::Internal("fake measure device: an SM copy out of range");
  }
  return Sample(2.0 * double(bytes) / sim::CopyBandwidthGbs(truth_, sms));
}

Result<double> FakeMeasureDevice::CeCopyNs(int64_t bytes) {
  if (bytes < 1 || bytes > max_ce_copy_) return Status::Internal("fake measure device: a copy larger than Prepare's");
  return Sample(2.0 * double(bytes) / (truth_.hbm_gbs * truth_.hbm_efficiency));
}

Result<double> FakeMeasureDevice::GemmBesideCeCopyNs(const GemmShape& s, int64_t copy_bytes) {
  BRAID_RETURN_IF_ERROR(CheckGemm(s, 1));
  if (copy_bytes < 1 || copy_bytes > max_ce_copy_) {
    return Status::Internal("fake measure device: a copy larger than Prepare's");
  }
  const double ns = sim::GemmBesideCopyEngineNs(truth_, s.m, s.n, s.k, DType::kBf16);
  return Sample(ns, std::max(ns, 2.0 * double(copy_bytes) / (truth_.hbm_gbs * truth_.hbm_efficiency)));
}

Result<double> FakeMeasureDevice::LaunchGapNs(Launcher launcher, Gap gap) {
  double ns = truth_.launch_us * 1e3 + (launcher == Launcher::kHost ? kHostLaunchNs : 0);
  if (gap == Gap::kCrossStreamEvent) ns += truth_.event_wait_us * 1e3;
  return Sample(ns);
}

}  // namespace braid::measure

namespace braid::measure {

namespace {

// Intervals [begin, begin + length) that must tile [lo, hi) exactly once.
Status Partition(std::vector<std::pair<int64_t, int64_t>> v, int64_t lo, int64_t hi, const std::string& what) {
  std::sort(v.begin(), v.end());
  int64_t next = lo;
  for (auto [begin, length] : v) {
    if (begin != next || length < 1) {
      return Status::Internal(what + " at " + std::to_string(begin) + " where " + std::to_string(next) +
                              " was due (a gap or an overlap)");
    }
    next += length;
  }
  if (next != hi) return Status::Internal(what + " end at " + std::to_string(next) + ", not " + std::to_string(hi));
  return Status::Ok();
}

}  // namespace

Status FakeMeasureDevice::CheckFusedHalf(const cuda::fused::RankTables& t, const cuda::fused::FusedShape& shape,
                                         FusedPart part) {
  namespace fused = cuda::fused;
  const std::string half = "fake measure device: the fused kernel's " +
                           std::string(part == FusedPart::kGemm ? "GEMM half: " : "transfer half: ");
  if (t.ctas() != (part == FusedPart::kGemm ? shape.comm_ctas + shape.compute_ctas : shape.comm_ctas)) {
    return Status::Internal(half + "a grid of " + std::to_string(t.ctas()) + " CTAs");
  }
  // GEMM tiles by row band: the bands tile [0, m), each band's columns [0, n).
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> bands;
  std::vector<std::pair<int64_t, int64_t>> pulls;
  for (int c = 0; c < t.ctas(); ++c) {
    for (int32_t i = t.cta_begin[size_t(c)]; i < t.cta_begin[size_t(c) + 1]; ++i) {
      const fused::FusedTask& task = t.tasks[size_t(i)];
      if (task.wait_count != 0 || task.sets >= 0) return Status::Internal(half + "a task waits or raises a flag");
      const bool comm_cta = c < shape.comm_ctas;
      if (task.kind == fused::kGemmTile && part == FusedPart::kGemm && !comm_cta) {
        bands[{task.row0, task.rows}].push_back({task.col0, task.cols});
      } else if (task.kind == fused::kPullRows && part == FusedPart::kTransfer && comm_cta) {
        if (task.src <= 0 || task.src >= shape.ranks || task.cols != shape.k) {
          return Status::Internal(half + "a pull of the wrong rows");
        }
        pulls.push_back({task.row0, task.rows});
      } else {
        return Status::Internal(half + "task " + std::to_string(i) + " belongs to the other half or another CTA");
      }
    }
  }
  if (part == FusedPart::kTransfer) return Partition(pulls, shape.block_rows(), shape.m, half + "pulled rows");
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (const auto& [band, cols] : bands) {
    rows.push_back(band);
    BRAID_RETURN_IF_ERROR(Partition(cols, 0, shape.n, half + "columns of rows " + std::to_string(band.first)));
  }
  return Partition(rows, 0, shape.m, half + "row bands");
}

Status FakeMeasureDevice::CheckCoreProbe(const CoreProbe& probe, int sm_count) {
  const std::string at = "fake measure device: the GEMM core's probe: ";
  const cuda::gemm::GemmProblem& g = probe.gemm.problem;
  if (g.m != probe.shape.m || g.n != probe.shape.n || g.k != probe.shape.k || g.dtype != DType::kBf16) {
    return Status::Internal(at + "its GEMM is not the point's bf16 shape");
  }
  if (probe.comm_ctas < 1 || probe.gemm.grid < 1 || probe.gemm.grid + probe.comm_ctas > sm_count) {
    return Status::Internal(at + "a grid of " + std::to_string(probe.gemm.grid) + " CTAs beside " +
                            std::to_string(probe.comm_ctas) + " pull CTAs on " + std::to_string(sm_count) + " SMs");
  }
  // Rank 0 pulls every other block once, each from its owner, one flag per
  // arrival step 1 .. P-1 (step 0, its own block, is never raised).
  const int64_t block = probe.shape.m / probe.ranks;
  std::vector<std::pair<int64_t, int64_t>> rows;
  std::vector<int> flags;
  int64_t bytes = 0;
  for (const cuda::fused::CorePull& p : probe.pulls) {
    if (p.src < 1 || p.src >= probe.ranks || p.row0 < p.src * block || p.row0 + p.rows > (p.src + 1) * block) {
      return Status::Internal(at + "a pull of rows " + std::to_string(p.row0) + ".. from rank " +
                              std::to_string(p.src) + ", which does not own them");
    }
    rows.emplace_back(p.row0, p.rows);
    flags.push_back(p.flag);
    bytes += p.rows * probe.shape.k * 2;
  }
  std::sort(flags.begin(), flags.end());
  flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
  if (probe.steps != probe.ranks || flags.size() != size_t(probe.ranks - 1) || flags.front() != 1) {
    return Status::Internal(at + "its pulls raise " + std::to_string(flags.size()) + " flags of " +
                            std::to_string(probe.steps) + " steps");
  }
  if (bytes != probe.bytes) return Status::Internal(at + "its pulls move other bytes than it says");
  return Partition(rows, block, probe.shape.m, at + "pulled rows");
}

Result<double> FakeMeasureDevice::CoreFusedPartNs(const CoreProbe& probe, FusedPart part, int count) {
  if (!core_device_) return MeasureDevice::CoreFusedPartNs(probe, part, count);
  BRAID_RETURN_IF_ERROR(CheckGemm(probe.shape, count));
  const GemmShape& s = probe.shape;
  const auto key = std::tuple{s.m, s.n, s.k, probe.comm_ctas, probe.ranks, int(part)};
  if (checked_core_.insert(key).second) BRAID_RETURN_IF_ERROR(CheckCoreProbe(probe, truth_.sm_count));
  ++core_samples_;
  const double ns = HalfNs(s, probe.comm_ctas, part, probe.bytes);
  return Sample(ns, ns * count);
}

double FakeMeasureDevice::HalfNs(const GemmShape& s, int comm_sms, FusedPart part, int64_t bytes) const {
  const double launch_ns = truth_.launch_us * 1e3;
  if (part == FusedPart::kGemm) {
    const int sms = truth_.sm_count - comm_sms;
    return launch_ns +
           sim::GemmCostOf(truth_, s.m, s.n, s.k, DType::kBf16, sms).BodyNs(sms) / truth_.fused_gemm_efficiency;
  }
  const double copy_gbs = sim::CopyBandwidthGbs(truth_, comm_sms) / 2;  // bytes moved, not read + written
  const double per_cta =
      truth_.fused_sm_transfer_gbs > 0 ? truth_.fused_sm_transfer_gbs : sim::CopyBandwidthGbs(truth_, 1) / 2;
  return launch_ns + double(bytes) / std::min(per_cta * comm_sms, copy_gbs);
}

Result<double> FakeMeasureDevice::FusedPartNs(const GemmShape& s, int comm_sms, int ranks, FusedPart part, int count) {
  BRAID_RETURN_IF_ERROR(CheckGemm(s, count));
  auto tables = FusedProbeTables(s, comm_sms, ranks, truth_.sm_count, part);
  if (!tables.ok()) return Status::Internal("fake measure device: " + tables.status().message());
  const cuda::fused::FusedShape shape = FusedProbeShape(s, comm_sms, ranks, truth_.sm_count);
  // Checked once per point (the tables do not change between samples).
  const auto key = std::tuple{s.m, s.n, s.k, comm_sms, ranks, int(part)};
  if (checked_fused_.insert(key).second) BRAID_RETURN_IF_ERROR(CheckFusedHalf(*tables, shape, part));
  const double ns = HalfNs(s, comm_sms, part, FusedPulledBytes(*tables));
  return Sample(ns, ns * count);
}

}  // namespace braid::measure
