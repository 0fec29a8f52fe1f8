#include "braid/train_step.h"

#include <algorithm>
#include <cstdio>

#include "braid/budgets.h"
#include "braid/metrics.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_block.h"
#include "braid/sim_models.h"
#include "braid/stored_text.h"

namespace braid {

using sim::CollectiveAlgo;
using sim::CollectiveTimeOnSms;
using sim::CommSms;
using sim::GemmBesideHeldSmsNs;
using sim::GemmTimeNs;

namespace {

Status CheckSetup(const DpSetup& d, int64_t params_per_rank) {
  if (d.dp < 1) return Status::Invalid("`dp` must be at least 1 (got " + std::to_string(d.dp) + ")");
  if (d.bucket_params && *d.bucket_params < 1) {
    return Status::Invalid("`bucket_params` must be at least 1 (got " + std::to_string(*d.bucket_params) + ")");
  }
  if (d.bucket_params && params_per_rank > 0 && *d.bucket_params > params_per_rank) {
    return Status::Invalid("`bucket_params` " + std::to_string(*d.bucket_params) + " is beyond the " +
                           std::to_string(params_per_rank) + " parameters each rank's blocks reduce");
  }
  if (d.prefetch < 1) return Status::Invalid("`prefetch` must be at least 1 (got " + std::to_string(d.prefetch) + ")");
  if (d.comm_sms < 0) return Status::Invalid("`dp.comm_sms` must be >= 0 (got " + std::to_string(d.comm_sms) + ")");
  if (d.decomposed_layers < -1) return Status::Invalid("`decomposed_layers` must be -1 (all) or >= 0");
  return Status::Ok();
}

// One block's per-op times, from a run's layer note.
struct BlockTimes {
  double block_ns = 0, forward_ns = 0, backward_ns = 0, tp_exposed_ns = 0;
  std::vector<std::pair<std::string, double>> backward_ops;  // name, time (backward order)
};

Result<BlockTimes> BlockTimesOf(const RunRecord& run) {
  BlockTimes b;
  b.block_ns = run.figures.metrics.overall[Metric::kMakespan].p50;
  b.tp_exposed_ns = run.figures.metrics.overall[Metric::kExposedComm].p50;
  double backward_sum = 0;
  for (const LayerOpNote& op : LayerOpsOf(run.notes)) {
    if (!op.figures) return Status::Invalid("the block run has no per-op figures");
    if (op.pass == "fprop") {
      b.forward_ns += op.figures->time_ns;
    } else {
      b.backward_ops.emplace_back(op.name, op.figures->time_ns);
      backward_sum += op.figures->time_ns;
    }
  }
  if (b.backward_ops.empty()) return Status::Invalid("the block run is not a training step");
  b.forward_ns = std::min(b.forward_ns, b.block_ns);
  b.backward_ns = b.block_ns - b.forward_ns;
  // Ops of a bulk pair overlap: their summed times exceed the backward's.
  // Scale them onto it, so a gradient is ready where its wgrad ends.
  const double scale = backward_sum > 0 ? b.backward_ns / backward_sum : 0;
  for (auto& [name, ns] : b.backward_ops) ns *= scale;
  return b;
}

// Where each gradient of a block is ready: the end of its wgrad in the backward.
std::vector<DpGradient> Gradients(const std::vector<DpOp>& ops, const BlockTimes& block) {
  std::vector<DpGradient> grads;
  for (const DpOp& op : ops) {
    if (op.kind != DpOpKind::kGradReduce) continue;
    DpGradient g;
    g.linear = op.linear;
    g.params = op.params();
    g.bytes = op.bytes();
    double at = 0;
    for (const auto& [name, ns] : block.backward_ops) {
      at += ns;
      if (name == op.linear + ".wgrad") break;
    }
    g.grad_ready = block.backward_ns > 0 ? std::clamp(at / block.backward_ns, 1e-9, 1.0) : 1.0;
    grads.push_back(g);
  }
  return grads;
}

double BlockFlopsPerRank(const LayerWorkload& lw) {
  double flops = 0;
  for (const LayerOp& op : lw.ops) {
    flops += op.kind == LayerOpKind::kAttention ? op.flops : op.gemm.Flops() / double(lw.tp);
  }
  return flops;
}

std::string LinkWords(const Topology& group) {
  char buf[160];
  if (group.domains() <= 1) {
    std::snprintf(buf, sizeof buf, "%s, %.0f GB/s a rank", std::string(LinkKindName(group.intra.kind)).c_str(),
                  group.intra.bandwidth_gbs);
  } else {
    std::snprintf(buf, sizeof buf, "%s, %d rail(s) of %.1f GB/s a node of the group",
                  std::string(LinkKindName(group.inter.kind)).c_str(), group.inter.nics_per_node,
                  group.inter.bandwidth_gbs);
  }
  return buf;
}

}  // namespace

namespace {

struct Checked {
  std::vector<DpOp> ops;
  int layers = 0;
  SimHardware hw;
  Topology group;
};

Result<Checked> Check(const TrainStepRequest& r) {
  if (r.block.phase != Phase::kTrain) return Status::Invalid("a training step needs phase train");
  Checked c;
  BRAID_ASSIGN_OR_RETURN(c.ops, MakeDpOps(r.block, r.dp.dp, r.dp.zero));
  if (r.layers < 0 || r.layers > kMaxStepLayers) {
    return Status::Invalid("`layers` must be between 0 (the model's) and " + std::to_string(kMaxStepLayers) + " (got " +
                           std::to_string(r.layers) + ")");
  }
  c.layers = r.layers > 0 ? r.layers : int(std::clamp<int64_t>(r.block.model.layers, 1, kMaxStepLayers));
  BRAID_RETURN_IF_ERROR(CheckSetup(r.dp, GradParams(c.ops) * c.layers));
  BRAID_ASSIGN_OR_RETURN(c.hw, LoadSimHardware(r.topology));
  if (r.dp.comm_sms >= c.hw.gpu.sm_count) {
    return Status::Invalid("`dp.comm_sms` " + std::to_string(r.dp.comm_sms) + " of the DP collectives must leave the " +
                           c.hw.gpu.name + "'s " + std::to_string(c.hw.gpu.sm_count) + " SMs some for the GEMMs");
  }
  BRAID_RETURN_IF_ERROR(c.hw.topo.CheckFits(r.block.tp));
  BRAID_ASSIGN_OR_RETURN(c.group, DpGroupTopology(c.hw.topo, r.block.tp, r.dp.dp));
  if (r.dp.schedule == DpSchedule::kDecomposed) {
    const Algorithm a = r.dp.decomposition.algorithm;
    if (!PlansDpOps(a)) {
      return Status::Invalid("a decomposed DP gradient is planned serial, chunked, ring, bidir_ring or direct, not " +
                             std::string(AlgorithmName(a)));
    }
    for (const DpOp& op : c.ops) {
      if (Status s = r.dp.decomposition.Validate(op.gemm); !s.ok()) {
        return Status::Invalid(op.name + " decomposed: " + s.message());
      }
    }
  }
  return c;
}

}  // namespace

Status CheckTrainStep(const TrainStepRequest& request) { return Check(request).status(); }

Result<TrainStepFigures> SimulateTrainStep(const TrainStepRequest& r, const RunRecord* block_run) {
  BRAID_ASSIGN_OR_RETURN(Checked checked, Check(r));
  const std::vector<DpOp>& ops = checked.ops;
  const int layers = checked.layers;
  const SimHardware& hw = checked.hw;
  const Topology& group = checked.group;

  RunRecord fresh;
  if (block_run == nullptr) {
    BRAID_ASSIGN_OR_RETURN(fresh, SimulateBlockRun(r.block, r.config, r.topology));
    block_run = &fresh;
  }
  BRAID_ASSIGN_OR_RETURN(BlockTimes block, BlockTimesOf(*block_run));

  TrainStepFigures f;
  f.layers = layers;
  f.block_ns = block.block_ns;
  f.forward_ns = block.forward_ns;
  f.backward_ns = block.backward_ns;
  f.tp_exposed_comm_ns = block.tp_exposed_ns;
  f.bucket_params = r.dp.bucket_params.value_or(MegatronDefaultBucketParams(r.dp.dp));
  f.dp_link = LinkWords(group);

  const GpuSpec& gpu = hw.gpu;
  const int dp = r.dp.dp;
  const int sms = CommSms(group, r.dp.comm_sms);
  const double launch = gpu.launch_us * 1e3;
  const CollectiveKind grad_kind =
      r.dp.zero == ZeroStage::kNone ? CollectiveKind::kAllReduce : CollectiveKind::kReduceScatter;
  DpStepInput in;
  in.layers = layers;
  in.forward_ns = block.forward_ns;
  in.backward_ns = block.backward_ns;
  in.gradients = Gradients(ops, block);
  in.schedule = dp > 1 ? r.dp.schedule : DpSchedule::kSerial;
  in.bucket_params = f.bucket_params;
  in.decomposed_layers = r.dp.decomposed_layers;
  in.prefetch = r.dp.prefetch;
  in.grad_collective_ns = [&](int64_t bytes) {
    return launch + CollectiveTimeOnSms(gpu, group, grad_kind, bytes, dp, sms).total_ns();
  };
  in.gather_collective_ns = [&](int64_t bytes) {
    return launch + CollectiveTimeOnSms(gpu, group, CollectiveKind::kAllGather, bytes, dp, sms).total_ns();
  };
  if (r.dp.zero != ZeroStage::kNone && dp > 1) {
    for (const DpOp& op : ops) in.gather_bytes += op.kind == DpOpKind::kParamGather ? op.bytes() : 0;
    in.gather_in_backward = r.dp.zero == ZeroStage::k3;
  }
  // Compute beside a DP collective: the block's largest GEMM (fc1's
  // forward, per rank) on the SMs the collective's kernels leave; over
  // NVLink they also copy through HBM, over the network they wait on it.
  if (dp > 1) {
    const LayerWorkload& lw = r.block;
    const int64_t n = (lw.model.gated_mlp ? 2 : 1) * lw.model.ffn / lw.tp;
    const double alone = GemmTimeNs(gpu, lw.tokens(), n, lw.model.hidden, lw.dtype);
    // The SMs its kernels hold: the channels of the algorithm NCCL picks for
    // one bucket of gradients (NVLS runs on fewer CTAs than the ring).
    double params = 0, bytes = 0;
    for (const DpGradient& g : in.gradients) params += double(g.params), bytes += double(g.bytes);
    const auto bucket_bytes = int64_t(params > 0 ? double(f.bucket_params) * bytes / params : 0.0);
    const CollectiveAlgo algo = sim::ChooseCollective(gpu, group, grad_kind, bucket_bytes, dp, sms).algo;
    const int held = std::clamp(sim::CollectiveSms(group, dp, algo, r.dp.comm_sms), 0, gpu.sm_count - 1);
    const double beside =
        GemmBesideHeldSmsNs(gpu, lw.tokens(), n, lw.model.hidden, lw.dtype, held, group.domains() <= 1);
    f.stretch = alone > 0 ? std::max(beside / alone, 1.0) : 1.0;
  }
  in.stretch = f.stretch;
  if (in.schedule == DpSchedule::kDecomposed) {
    SimBackend sim(gpu, group);
    for (const DpOp& op : ops) {
      Result<Plan> plan = BuildPlan(op.gemm, r.dp.decomposition);
      if (!plan.ok()) return Status::Invalid(op.name + " decomposed: " + plan.status().message());
      BRAID_RETURN_IF_ERROR(CheckPlanStructure(*plan));
      BRAID_ASSIGN_OR_RETURN(int64_t ns, sim.Evaluate(*plan));
      // What the rank's GEMM takes alone: its wgrad over its own tokens
      // (a K shard), or its fprop over its own tokens (an N shard).
      const bool grad = op.kind == DpOpKind::kGradReduce;
      const double plain = grad ? GemmTimeNs(gpu, op.gemm.m, op.gemm.n, op.gemm.k / dp, op.gemm.dtype)
                                : GemmTimeNs(gpu, op.gemm.m, op.gemm.n / dp, op.gemm.k, op.gemm.dtype);
      (grad ? in.decomposed_extra_ns : in.decomposed_gather_extra_ns) += std::max(double(ns) - plain, 0.0);
      f.decomposed_ns.emplace_back(op.name, double(ns));
    }
  }
  BRAID_ASSIGN_OR_RETURN(f.schedule, ScheduleDpStep(in));
  f.step_ns = f.schedule.step_ns;
  const double tokens = double(r.block.tokens()) * dp;
  f.tokens_per_s = f.step_ns > 0 ? tokens / (f.step_ns * 1e-9) : 0;
  const double peak = gpu.PeakTflops(r.block.dtype) * 1e12;
  f.mfu = f.step_ns > 0 && peak > 0 ? BlockFlopsPerRank(r.block) * layers / (f.step_ns * 1e-9 * peak) : 0;
  return f;
}

}  // namespace braid
