// What the backend tests (cpu, cuda) share: a plan that must build, one
// verified iteration, and a layer small enough for reference matmuls (and
// its plan).
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "braid/backend.h"
#include "braid/layer_workload.h"
#include "braid/model_spec.h"
#include "braid/planner.h"

namespace braid::testing {

// `algo` with `chunks` chunks on `comm_lanes` comm lanes, the rest default.
inline OverlapConfig OverlapConfigOf(Algorithm algo, int chunks = 1, int comm_lanes = 1) {
  OverlapConfig cfg;
  cfg.algorithm = algo;
  cfg.chunks = chunks;
  cfg.comm_lanes = comm_lanes;
  return cfg;
}

// The plan for `w` under `cfg`; a planner error fails the test (naming the
// workload and config) and gives an empty plan.
inline Plan MustBuildPlan(const Workload& w, const OverlapConfig& cfg) {
  Result<Plan> plan = BuildPlan(w, cfg);
  if (!plan.ok()) {
    ADD_FAILURE() << w.Describe() << " " << cfg.Describe() << ": " << plan.status().message();
    return Plan();
  }
  return std::move(plan).value();
}

// One traced iteration, no warmup, checked against the reference result.
inline RunOptions VerifyOnce() {
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  o.verify = true;
  return o;
}

// A transformer layer small enough for reference matmuls, divisible by P = 2
// and 4.
inline ModelSpec TinyLayerModel() {
  ModelSpec m;
  m.name = "tiny";
  m.hidden = 32;
  m.heads = 4;
  m.kv_heads = 4;
  m.head_dim = 8;
  m.ffn = 64;
  m.gated_mlp = true;
  return m;
}

// That layer's prefill plan of `seq` tokens at P = 2, bf16, sequence
// parallel, under `cfg`: the workload's or the planner's error otherwise.
inline Result<Plan> TinyLayerPlan(int64_t seq, const OverlapConfig& cfg) {
  BRAID_ASSIGN_OR_RETURN(auto lw, MakeLayerWorkload(TinyLayerModel(), seq, 1, Phase::kPrefill, 2, DType::kBf16, true));
  return BuildLayerPlan(lw, cfg);
}

}  // namespace braid::testing
