#include "braid/sim_loopback.h"

#include <algorithm>
#include <string>

#include "braid/topology.h"

namespace braid::sim {

namespace {

double HbmRate(const GpuSpec& gpu) { return gpu.hbm_gbs * gpu.hbm_efficiency; }

// `traffic` bytes of copy traffic at the copies' rate, weighted as a
// copy-engine copy (see the header).
LoopbackCopy CopyOf(const GpuSpec& gpu, double traffic, double latency_ns) {
  const double rate = HbmRate(gpu) * gpu.loopback_copy_efficiency;
  const double demand = rate * std::max(gpu.hbm_ce_weight, 1e-9);
  return {latency_ns, traffic / rate * HbmShareAlone(gpu, demand), demand};
}

}  // namespace

LoopbackCopy LoopbackTransfer(const GpuSpec& gpu, int64_t bytes) {
  return CopyOf(gpu, 2.0 * double(bytes), gpu.event_wait_us * 1e3);
}

// An SM kernel streaming its bytes, as MemoryKernelNs has it on any GPU: at
// the HBM rate, not the flag-chained copies' share of it. It runs on the
// copy port, whose demand is the copies' (Engine::UpdateHbmFactor): its work
// is scaled by the share of the HBM rate that demand gets alone, so that
// alone it takes bytes / HBM rate.
LoopbackCopy LoopbackMemoryKernel(const GpuSpec& gpu, int64_t bytes) {
  const double port_demand = CopyOf(gpu, 0, 0).hbm_demand;
  return {0, double(bytes) / HbmRate(gpu) * HbmShareAlone(gpu, port_demand), port_demand};
}

LoopbackCopy LoopbackCollective(const GpuSpec& gpu, CollectiveKind kind, int64_t bytes, int ranks) {
  if (ranks <= 1) return {};
  const double n = ranks, b = double(bytes);
  double traffic = n * 2.0 * b * BusBwFactor(kind, ranks);
  if (kind != CollectiveKind::kAllGather) traffic += n * b * (1.0 + 1.0 / n);
  return CopyOf(gpu, traffic, (n - 1) * gpu.launch_us * 1e3 + gpu.event_wait_us * 1e3);
}

int LoopbackFusedSms(const GpuSpec& gpu, int ranks) { return gpu.sm_count / std::max(ranks, 1); }

FusedTime LoopbackFusedTime(const GpuSpec& gpu, int64_t m, int64_t n, int64_t k, DType dtype, CollectiveKind kind,
                            int64_t send_bytes, int ranks, int comm_sms, double contention) {
  GpuSpec share = gpu;
  share.sm_count = LoopbackFusedSms(gpu, ranks);
  // The ranks' copies share the device: a P-th of its copy rate each, as
  // the link FusedKernelTime reads.
  Topology on_one_gpu;
  on_one_gpu.name = "loopback";
  on_one_gpu.gpu = gpu.name;
  on_one_gpu.gpus_per_node = ranks;
  on_one_gpu.intra.bandwidth_gbs = HbmRate(gpu) * gpu.loopback_copy_efficiency / 2.0 / double(std::max(ranks, 1));
  on_one_gpu.intra.latency_us = gpu.event_wait_us;
  on_one_gpu.intra.simple_latency_us = gpu.event_wait_us;
  on_one_gpu.intra.simple_efficiency = 1.0;
  on_one_gpu.nccl_channels = std::max(1, share.sm_count - 1);
  const int sms = std::clamp(comm_sms, 1, std::max(1, share.sm_count - 1));
  FusedTime t = FusedKernelTime(share, on_one_gpu, m, n, k, dtype, kind, send_bytes, ranks, sms,
                                CommSmsLost(sms, contention, share.sm_count));
  t.hbm_bytes *= double(ranks);
  return t;
}

namespace {

// Copies (or adds) a region takes: one per piece unless the pieces touch
// (step_issue.cc RowRuns merges adjacent rows).
int Runs(const Region& r) { return r.pieces > 1 && r.stride != r.rows ? r.pieces : 1; }

}  // namespace

int LoopbackHostCalls(const Step& s, int ranks, int cross_lane_waits) {
  int work = 1;
  switch (s.kind) {
    case StepKind::kGemm:
      work = s.a.pieces;
      break;
    case StepKind::kReduce:
      work = std::max({Runs(s.a), Runs(s.b), Runs(s.c)});
      break;
    case StepKind::kCopy:
      work = std::max(Runs(s.a), Runs(s.c));
      break;
    case StepKind::kSend:
      work = Runs(s.a) + 1;  // the copy into the peer's inbox, its flag
      break;
    case StepKind::kRecv:
      work = 1 + Runs(s.c);  // the flag wait, the copy out of the inbox
      break;
    case StepKind::kCollective:
      // Each peer piece is whole rows: a copy and a flag to each peer, the
      // own part, a wait and a copy or add from each.
      work = 4 * (std::max(ranks, 1) - 1) + 1;
      break;
    case StepKind::kCompute:
    case StepKind::kFused:
      break;
  }
  return cross_lane_waits + work + 1;
}

Status CheckLoopback(const GpuSpec& gpu, const Plan& plan) {
  const int p = plan.tp();
  if (p > gpu.sm_count) {
    return Status::Invalid("`loopback`: `tp` " + std::to_string(p) + " ranks cannot share one " + gpu.name + " (" +
                           std::to_string(gpu.sm_count) + " SMs; each rank needs one)");
  }
  if (plan.config.algorithm == Algorithm::kFused && LoopbackFusedSms(gpu, p) < 2) {
    return Status::Invalid("`loopback`: a fused kernel of each of `tp` " + std::to_string(p) +
                           " ranks needs 2 of the " + std::to_string(gpu.sm_count) + " SMs of one " + gpu.name +
                           "; use fewer ranks");
  }
  return Status::Ok();
}

}  // namespace braid::sim
