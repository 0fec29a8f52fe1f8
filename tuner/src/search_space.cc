#include "braid/search_space.h"

#include <algorithm>

#include "braid/backend_kind.h"
#include "braid/comm_sms_effect.h"

namespace braid {
namespace {

constexpr int kChunkedChunks[] = {2, 3, 4, 6, 8};
constexpr int kRingChunks[] = {1, 2, 4};
constexpr int kCollectiveSms[] = {0, 8, 16, 32};  // 0: the backend's default
constexpr int kFusedSms[] = {4, 8, 12, 16, 20, 24, 32, 40, 48, 64};

// Adds c when it is valid for w and not already present.
void Add(std::vector<OverlapConfig>& out, const Workload& w, const OverlapConfig& c) {
  if (!c.Validate(w).ok()) return;
  const std::string d = c.Describe();
  for (const OverlapConfig& o : out) {
    if (o.Describe() == d) return;
  }
  out.push_back(c);
}

// The SM budgets and priorities worth trying for a config whose comm
// kernels hold SMs (`holds_sms`); otherwise only the defaults.
void AddSmVariants(std::vector<OverlapConfig>& out, const Workload& w, OverlapConfig c, bool holds_sms,
                   const BackendKnobs& knobs, int gpu_sms) {
  if (!holds_sms || !knobs.comm_sms) {
    Add(out, w, c);
    return;
  }
  for (int sms : kCollectiveSms) {
    if (gpu_sms > 0 && sms >= gpu_sms) continue;
    c.comm_sms = sms;
    c.comm_high_priority = true;
    Add(out, w, c);
    if (knobs.priorities) {
      c.comm_high_priority = false;
      Add(out, w, c);
    }
  }
}

// Engines for a config: SMs always; the copy engine where the comm only
// moves data (sends of a ring or direct plan, all-gather collectives). Their
// reduces (gemm_rs / gemm_ar) still run on SMs (CommSmsTakeEffect).
void AddEngineVariants(std::vector<OverlapConfig>& out, const Workload& w, OverlapConfig c, const BackendKnobs& knobs,
                       int gpu_sms) {
  const bool peer_to_peer = IsPeerToPeer(c.algorithm);
  c.comm_engine = CommEngine::kSm;
  AddSmVariants(out, w, c, CommSmsTakeEffect(c, w.op), knobs, gpu_sms);
  if (!knobs.copy_engine) return;
  const bool moves_only = peer_to_peer || w.op == Op::kAgGemm;
  if (!moves_only) return;
  c.comm_engine = CommEngine::kCopyEngine;
  AddSmVariants(out, w, c, CommSmsTakeEffect(c, w.op), knobs, gpu_sms);
}

}  // namespace

Result<BackendKnobs> KnobsOfBackend(std::string_view backend) {
  BRAID_ASSIGN_OR_RETURN(const BackendKind kind, ParseBackendKind(backend));
  switch (kind) {
    case BackendKind::kSim:
      return BackendKnobs{};
    case BackendKind::kCuda:
      return BackendKnobs{true, true, true, true, /*fused_max_comm_sms=*/32, /*fused_fp32=*/false};
    case BackendKind::kCpu:
      return BackendKnobs{false, false, false, false};
  }
  return Status::Internal("no knobs for backend " + std::string(BackendKindName(kind)));
}

BackendKnobs KnobsOnSharedGpu(BackendKnobs knobs, int gpu_sms, int ranks) {
  if (!knobs.fused || gpu_sms <= 0 || ranks <= 1) return knobs;
  const int spare = gpu_sms / ranks - 1;  // one SM stays with the GEMM
  if (spare < 1) {
    knobs.fused = false;
    return knobs;
  }
  knobs.fused_max_comm_sms = knobs.fused_max_comm_sms > 0 ? std::min(knobs.fused_max_comm_sms, spare) : spare;
  return knobs;
}

std::vector<OverlapConfig> BuildSearchSpace(const Workload& w, const BackendKnobs& knobs, int gpu_sms) {
  std::vector<OverlapConfig> out;
  // Serial is the baseline, once: with one lane waiting for the other, its
  // priorities, engines and SM budgets overlap nothing.
  Add(out, w, OverlapConfig{});

  for (int lanes : {1, 2}) {
    for (int chunks : kChunkedChunks) {
      OverlapConfig c;
      c.algorithm = Algorithm::kChunked;
      c.chunks = chunks;
      c.comm_lanes = lanes;
      AddEngineVariants(out, w, c, knobs, gpu_sms);
    }
    for (const std::vector<int>& splits : {std::vector<int>{1, 2, 2, 2}, std::vector<int>{2, 2, 2, 1}}) {
      OverlapConfig c;
      c.algorithm = Algorithm::kChunked;
      c.chunks = int(splits.size());
      c.splits = splits;
      c.comm_lanes = lanes;
      AddEngineVariants(out, w, c, knobs, gpu_sms);
    }
    // Validate keeps direct to ag_gemm and gemm_rs.
    for (Algorithm algorithm : {Algorithm::kRing, Algorithm::kDirect}) {
      for (int chunks : kRingChunks) {
        OverlapConfig c;
        c.algorithm = algorithm;
        c.chunks = chunks;
        c.comm_lanes = lanes;
        AddEngineVariants(out, w, c, knobs, gpu_sms);
      }
    }
  }
  for (int chunks : kRingChunks) {
    OverlapConfig c;
    c.algorithm = Algorithm::kBidirRing;
    c.chunks = chunks;
    c.comm_lanes = 2;  // one lane per direction
    AddEngineVariants(out, w, c, knobs, gpu_sms);
  }
  // FP8 fused runs only on the cuda backend's GEMM core (E4M3, sm_90a), an
  // engine the search does not pick; the tasks kernel has no FP8 tiles.
  const bool fused_dtype_ok = (knobs.fused_fp32 || w.dtype != DType::kFp32) && !IsFp8(w.dtype);
  if (knobs.fused && fused_dtype_ok && w.op != Op::kGemmAr) {
    for (int sms : kFusedSms) {
      if (gpu_sms > 0 && sms >= gpu_sms) continue;
      if (knobs.fused_max_comm_sms > 0 && sms > knobs.fused_max_comm_sms) continue;
      OverlapConfig c;
      c.algorithm = Algorithm::kFused;
      c.comm_sms = sms;
      Add(out, w, c);
    }
  }
  return out;
}

}  // namespace braid
