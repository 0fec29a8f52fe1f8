// Helpers shared by the cuda backend's fake-driven tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/cuda_backend.h"
#include "braid/cuda_fakes.h"
#include "braid/model_spec.h"
#include "braid/planner.h"

namespace braid::testing {

// A layer small enough for the fakes' reference matmuls, divisible by P = 2.
inline ModelSpec CudaTinyModel() {
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

inline Plan CudaPlan(Op op, int64_t m, int64_t n, int64_t k, int p, Algorithm algo, int chunks = 1, int comm_lanes = 1,
                     DType dtype = DType::kBf16, CommEngine engine = CommEngine::kSm, int comm_sms = 0) {
  const Workload w{op, m, n, k, dtype, p};
  OverlapConfig cfg;
  cfg.algorithm = algo;
  cfg.chunks = chunks;
  cfg.comm_lanes = comm_lanes;
  cfg.comm_engine = engine;
  cfg.comm_sms = comm_sms;
  Result<Plan> plan = BuildPlan(w, cfg);
  if (!plan.ok()) {
    ADD_FAILURE() << w.Describe() << " " << cfg.Describe() << ": " << plan.status().message();
    return Plan();
  }
  return std::move(plan).value();
}

inline RunOptions CudaVerifyOnce() {
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  o.verify = true;
  return o;
}

// Runs `plan` on a fresh fake world.
inline Result<RunOutput> RunOnFake(const Plan& plan, const RunOptions& run, CudaBackendOptions options = {},
                                   cuda::FakeGpuConfig config = {}, cuda::FakeGpuStats* stats = nullptr) {
  cuda::FakeGpu gpu(config);
  CudaBackend backend(gpu.Seams(), options);
  Result<RunOutput> out = backend.Run(plan, run);
  if (stats != nullptr) *stats = gpu.stats();
  return out;
}

}  // namespace braid::testing
