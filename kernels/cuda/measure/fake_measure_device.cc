// FakeMeasureDevice (braid/gpu_measure_fake.h): the sim's models as a GPU.
#include <algorithm>

#include "braid/gpu_measure_fake.h"
#include "braid/sim_models.h"

namespace braid::measure {

FakeMeasureDevice::FakeMeasureDevice(GpuSpec truth, std::string name, double noise)
    : truth_(std::move(truth)), name_(std::move(name)), noise_(noise) {}

void FakeMeasureDevice::FailAtSample(int n, Status status) {
  fail_at_ = n;
  fail_status_ = std::move(status);
}

Status FakeMeasureDevice::Prepare(const MeasurePlan& plan) {
  std::vector<GemmShape> all = plan.gemm_shapes;
  all.insert(all.end(), plan.held_shapes.begin(), plan.held_shapes.end());
  all.push_back(plan.ce_gemm);
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
