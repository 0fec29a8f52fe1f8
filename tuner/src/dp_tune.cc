#include "braid/dp_tune.h"

#include <algorithm>

namespace braid {

std::vector<DpSetup> DpCandidates(const DpSetup& base, int64_t params_per_layer, int layers) {
  std::vector<DpSetup> out;
  DpSetup s = base;
  s.bucket_params.reset();
  s.decomposed_layers = -1;
  s.prefetch = 1;
  s.schedule = DpSchedule::kSerial;
  out.push_back(s);
  const int64_t total = params_per_layer * std::max(layers, 1);
  const int64_t megatron = MegatronDefaultBucketParams(base.dp);
  std::vector<int64_t> buckets = {megatron,     megatron / 4, megatron / 2,    megatron * 2,
                                  megatron * 4, megatron * 8, params_per_layer};
  std::vector<int64_t> seen;
  const std::vector<int> prefetches = base.zero == ZeroStage::kNone ? std::vector<int>{1} : std::vector<int>{1, 2};
  // NCCL's channels (CTAs) for the DP group: over the network a few SMs
  // move all a NIC takes, and every SM they hold is lost to the GEMMs.
  std::vector<int> sms = {base.comm_sms};
  for (int n : {4, 8, 16}) {
    if (n != base.comm_sms) sms.push_back(n);
  }
  for (int64_t b : buckets) {
    if (b < 1 || b > total || std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
    seen.push_back(b);
    for (int prefetch : prefetches) {
      for (int n : sms) {
        s = base;
        s.schedule = DpSchedule::kBucketed;
        s.bucket_params = b;
        s.prefetch = prefetch;
        s.comm_sms = n;
        out.push_back(s);
      }
    }
  }
  const bool scatter = base.zero != ZeroStage::kNone;
  std::vector<Algorithm> algos = {Algorithm::kRing, Algorithm::kBidirRing};
  if (scatter) algos.push_back(Algorithm::kDirect);
  for (int n : {1, 2, 4, -1}) {
    if (n > layers) continue;
    for (Algorithm a : algos) {
      for (int chunks : {1, 2}) {
        for (int prefetch : prefetches) {
          s = base;
          s.schedule = DpSchedule::kDecomposed;
          s.bucket_params.reset();
          s.decomposed_layers = n;
          s.decomposition = OverlapConfig{};
          s.decomposition.algorithm = a;
          s.decomposition.chunks = chunks;
          s.prefetch = prefetch;
          out.push_back(s);
        }
      }
    }
  }
  return out;
}

namespace {
constexpr double kKeepDefault = 0.001;
}  // namespace

Result<DpTuneResult> TuneDpStep(const TrainStepRequest& request, const RunRecord& block_run) {
  BRAID_RETURN_IF_ERROR(CheckTrainStep(request));
  BRAID_ASSIGN_OR_RETURN(std::vector<DpOp> ops, MakeDpOps(request.block, request.dp.dp, request.dp.zero));
  const int64_t params_per_layer = GradParams(ops);
  const int layers = request.layers > 0 ? request.layers : int(std::max<int64_t>(request.block.model.layers, 1));
  DpTuneResult result;
  result.megatron = request.dp;
  result.megatron.schedule = DpSchedule::kBucketed;
  result.megatron.bucket_params.reset();
  result.megatron.prefetch = 1;
  TrainStepRequest r = request;
  r.dp = result.megatron;
  BRAID_ASSIGN_OR_RETURN(result.megatron_figures, SimulateTrainStep(r, &block_run));
  std::vector<std::pair<DpSetup, TrainStepFigures>> tried;
  for (const DpSetup& setup : DpCandidates(request.dp, params_per_layer, layers)) {
    r.dp = setup;
    // A plan the op refuses (chunks that do not divide) is not a candidate.
    if (!CheckTrainStep(r).ok()) continue;
    BRAID_ASSIGN_OR_RETURN(TrainStepFigures f, SimulateTrainStep(r, &block_run));
    tried.emplace_back(setup, std::move(f));
  }
  if (tried.empty()) return Status::Invalid("no DP setup could be planned for this block");
  std::stable_sort(tried.begin(), tried.end(),
                   [](const auto& a, const auto& b) { return a.second.step_ns < b.second.step_ns; });
  result.candidates = int(tried.size());
  result.best = tried.front().first;
  result.best_figures = tried.front().second;
  // A change of setup must pay for itself: within kKeepDefault of the
  // fastest, Megatron's defaults stay what the user runs.
  if (result.megatron_figures.step_ns <= result.best_figures.step_ns * (1 + kKeepDefault)) {
    result.best = result.megatron;
    result.best_figures = result.megatron_figures;
  }
  for (size_t i = 0; i < tried.size() && i < 5; ++i)
    result.ranked.emplace_back(tried[i].first, tried[i].second.step_ns);
  return result;
}

std::string MegatronDpArgs(const DpSetup& s, std::string* missing) {
  std::string args;
  std::string gaps;
  if (s.zero != ZeroStage::kNone) args += "--use-distributed-optimizer ";
  if (s.zero == ZeroStage::k3)
    gaps += "ZeRO-3 (Megatron-LM's distributed optimizer is stage 1; use FSDP2 fully_shard); ";
  if (s.schedule == DpSchedule::kSerial) {
    args += "(no --overlap-grad-reduce)";
  } else {
    args += "--overlap-grad-reduce";
    if (s.schedule == DpSchedule::kBucketed) {
      args += " --ddp-bucket-size " + std::to_string(s.bucket_params.value_or(MegatronDefaultBucketParams(s.dp)));
    } else {
      gaps += "decomposed gradients (each wgrad GEMM sending its blocks as they finish: no Megatron-LM knob); ";
    }
  }
  if (s.zero == ZeroStage::k1 || s.zero == ZeroStage::k2) args += " --overlap-param-gather";
  if (s.comm_sms > 0) {
    args += " --nccl-communicator-config-path FILE (FILE: \"dp: {max_ctas: " + std::to_string(s.comm_sms) +
            ", min_ctas: " + std::to_string(s.comm_sms) + "}\")";
  }
  if (s.prefetch > 1) gaps += "prefetch " + std::to_string(s.prefetch) + " (Megatron-LM gathers one bucket ahead); ";
  if (missing != nullptr) *missing = gaps.empty() ? "" : gaps.substr(0, gaps.size() - 2);
  return args;
}

}  // namespace braid
