// The fused probe on the GEMM core (braid/gpu_measure.h CoreProbeFor): the
// core's own plan and rank 0's proved pulls, so that `calibrate --measure
// --fused-engine core` times what `--fused-engine core` runs.
#include <string>
#include <utility>
#include <vector>

#include "braid/core_schedule_check.h"
#include "braid/gpu_measure.h"
#include "gemm/scatter_epilogue.h"

namespace braid::measure {

namespace {

std::string PointName(const GemmShape& s, int comm_sms, int ranks) {
  return "the GEMM core's fused probe " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         " at P " + std::to_string(ranks) + " on " + std::to_string(comm_sms) + " comm SMs: ";
}

}  // namespace

Result<CoreProbe> CoreProbeFor(const GemmShape& s, int comm_sms, int ranks, const cuda::gemm::GemmDevice& device) {
  const std::string at = PointName(s, comm_sms, ranks);
  if (ranks < 2 || ranks > cuda::gemm::kMaxScatterRanks) {
    return Status::Invalid(at + "the core's fused plans run 2 to " + std::to_string(cuda::gemm::kMaxScatterRanks) +
                           " ranks");
  }
  // The pull kernel's CTAs sit on SMs the GEMM's persistent grid leaves
  // free, as the backend plans them (fused_core_step.cc PlanCoreStep).
  if (comm_sms < 1 || comm_sms >= device.num_sms) {
    return Status::Invalid(at + "the pulls need 1 to " + std::to_string(device.num_sms - 1) +
                           " CTAs and leave the rest to the GEMM");
  }
  cuda::gemm::GemmProblem problem;
  problem.m = s.m, problem.n = s.n, problem.k = s.k;
  problem.dtype = DType::kBf16;
  cuda::gemm::GemmDevice gemm_device = device;
  gemm_device.num_sms = device.num_sms - comm_sms;
  auto planned = cuda::gemm::PlanGemm(problem, gemm_device);
  if (!planned.ok()) return Status::Invalid(at + planned.status().message());
  // Every rank's schedule, proved together as the backend proves them
  // before a launch; the probe runs rank 0's.
  std::vector<cuda::fused::CoreRankSchedule> all;
  for (int r = 0; r < ranks; ++r) {
    auto one = cuda::fused::BuildCoreSchedule(cuda::fused::FusedOp::kAgGemm, planned->scheduler, ranks, r);
    if (!one.ok()) return Status::Invalid(at + one.status().message());
    all.push_back(std::move(one).value());
  }
  const Status proved = cuda::fused::CheckCoreSchedule(cuda::fused::FusedOp::kAgGemm, planned->scheduler, ranks, all);
  if (!proved.ok()) return Status::Internal(at + proved.message());
  const cuda::fused::CoreRankSchedule& mine = all[0];
  CoreProbe probe;
  probe.shape = s;
  probe.comm_ctas = comm_sms;
  probe.ranks = ranks;
  probe.gemm = *planned;
  probe.pulls = mine.pulls;
  probe.steps = mine.steps;
  for (const cuda::fused::CorePull& p : probe.pulls) probe.bytes += p.rows * s.k * 2;  // bf16
  return probe;
}

}  // namespace braid::measure
