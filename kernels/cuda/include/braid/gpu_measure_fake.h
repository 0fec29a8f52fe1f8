// A MeasureDevice for host tests: its samples come from the simulator's
// models of `truth` (the GPU file it pretends to be), so a fit of what it
// measured can be checked against figures known in advance.
//
// Deterministic noise: sample i is off by up to ±noise, and every fifth is a
// 3× outlier (a preempted replay) that the median must ignore. It checks its
// contract like the cuda fakes: samples before Prepare, counts out of range
// and GEMMs or copies larger than Prepare allocated are Internal errors.
// The fused kernel's halves run FusedProbeTables, checked: the GEMM half
// computes every output element once with no wait or flag and no pull, the
// transfer half pulls every other rank's block once and computes nothing.
// Their times: the GEMM half at truth's fused_gemm_efficiency of the chosen
// kernel on the SMs left, the transfer half at fused_sm_transfer_gbs per comm
// CTA (0: what one SM copies), at most what those SMs copy.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "braid/gpu_files.h"
#include "braid/gpu_measure.h"

namespace braid::measure {

class FakeMeasureDevice : public MeasureDevice {
 public:
  FakeMeasureDevice(GpuSpec truth, std::string name, double noise = 0.02);

  // Sample number `n` (from 0, warmup included) fails with `status`.
  void FailAtSample(int n, Status status);
  int samples() const { return samples_; }
  // The device time the samples so far would take on `truth` (a graph of
  // `count` GEMMs takes count times one), from the same models: how long a
  // plan keeps a real GPU busy, host overheads aside.
  double device_ns() const { return device_ns_; }
  // A C++ launcher's own cost per launch, on top of the GPU file's launch_us.
  static constexpr double kHostLaunchNs = 2500;

  std::string Name() const override { return name_; }
  int SmCount() const override { return truth_.sm_count; }
  Status Prepare(const MeasurePlan& plan) override;
  Result<double> GemmNs(const GemmShape& s, int count) override;
  // FP8 where truth has tflops_fp8 (its E4M3 GEMM model).
  bool HasFp8() const override { return truth_.tflops_fp8 > 0; }
  Result<double> Fp8GemmNs(const GemmShape& s, int count) override;
  Result<double> GemmBesideHolderNs(const GemmShape& s, int count, Holder holder, int held_sms) override;
  Result<double> SmCopyNs(int sms, int64_t bytes) override;
  Result<double> CeCopyNs(int64_t bytes) override;
  Result<double> GemmBesideCeCopyNs(const GemmShape& s, int64_t copy_bytes) override;
  Result<double> LaunchGapNs(Launcher launcher, Gap gap) override;
  Result<double> FusedPartNs(const GemmShape& s, int comm_sms, int ranks, FusedPart part, int count) override;
  // The kernels truth's own choice would launch (GemmCostOf): one named
  // like cuBLASLt's nvjet kernels with the chosen tile, on the chosen grid
  // (stream-K: the SMs it sized for), and a split-K reduction after it when
  // the choice splits K. Unavailable after SetKernelLog(false), like a
  // CUPTI that refuses.
  Result<std::vector<sim::MeasuredGemmKernel>> GemmKernels(const std::vector<GemmShape>& shapes, bool fp8) override;
  void SetKernelLog(bool on) { kernel_log_ = on; }
  int logged_shapes() const { return logged_shapes_; }
  // Internal (one line) unless `t` is the half `part` of the fused kernel of
  // `shape`: its grid, no wait or flag, each task on a CTA of its half, and
  // the GEMM tiles (or the pulled rows) covering the output (or the peers'
  // rows) once, without gap or overlap.
  static Status CheckFusedHalf(const cuda::fused::RankTables& t, const cuda::fused::FusedShape& shape, FusedPart part);

  // The GEMM core: by default an sm_90a kernel on all of truth's SMs (an
  // H100's shared-memory opt-in); std::nullopt: a device without one.
  Result<cuda::gemm::GemmDevice> CoreDevice() const override;
  void SetCoreDevice(std::optional<cuda::gemm::GemmDevice> device) { core_device_ = device; }
  // Its halves at the task kernel's figures (the same model of truth), after
  // CheckCoreProbe; core_samples() counts them.
  Result<double> CoreFusedPartNs(const CoreProbe& probe, FusedPart part, int count) override;
  int core_samples() const { return core_samples_; }
  // Internal (one line) unless `probe` is rank 0's: the point's bf16 GEMM on
  // a grid that leaves the pull CTAs their SMs, and pulls of every other
  // rank's block once, each from its owner, raising flags 1 .. P-1.
  static Status CheckCoreProbe(const CoreProbe& probe, int sm_count);

 private:
  // The checks every sample passes, then `ns` with this sample's noise;
  // `busy_ns` is what the sample keeps the device busy.
  Result<double> Sample(double ns, double busy_ns = -1);
  Status CheckGemm(const GemmShape& s, int count) const;
  // One fused half's time on truth, a launch gap included: the GEMM at
  // fused_gemm_efficiency on the SMs left, the pulls of `bytes` on comm_sms CTAs.
  double HalfNs(const GemmShape& s, int comm_sms, FusedPart part, int64_t bytes) const;

  GpuSpec truth_;
  std::string name_;
  double noise_;
  bool prepared_ = false;
  int64_t max_a_ = 0, max_b_ = 0, max_c_ = 0, max_sm_copy_ = 0, max_ce_copy_ = 0;
  int samples_ = 0;
  double device_ns_ = 0;
  int fail_at_ = -1;
  bool kernel_log_ = true;
  int logged_shapes_ = 0;
  Status fail_status_;
  std::set<std::tuple<int64_t, int64_t, int64_t, int, int, int>> checked_fused_;
  std::set<std::tuple<int64_t, int64_t, int64_t, int, int, int>> checked_core_;
  std::optional<cuda::gemm::GemmDevice> core_device_;  // set in the constructor
  int core_samples_ = 0;
};

}  // namespace braid::measure
