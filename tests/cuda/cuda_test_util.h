// Helpers shared by the cuda backend's fake-driven tests.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "backend_test_util.h"
#include "braid/cuda_backend.h"
#include "braid/cuda_fakes.h"

namespace braid::testing {

inline Plan CudaPlan(Op op, int64_t m, int64_t n, int64_t k, int p, Algorithm algo, int chunks = 1, int comm_lanes = 1,
                     DType dtype = DType::kBf16, CommEngine engine = CommEngine::kSm, int comm_sms = 0) {
  OverlapConfig cfg = OverlapConfigOf(algo, chunks, comm_lanes);
  cfg.comm_engine = engine;
  cfg.comm_sms = comm_sms;
  return MustBuildPlan({op, m, n, k, dtype, p}, cfg);
}

// The shared helpers (backend_test_util.h) under the names the cuda tests use.
inline ModelSpec CudaTinyModel() { return TinyLayerModel(); }
inline RunOptions CudaVerifyOnce() { return VerifyOnce(); }

// Runs `plan` on a fresh fake world.
inline Result<RunOutput> RunOnFake(const Plan& plan, const RunOptions& run, CudaBackendOptions options = {},
                                   cuda::FakeGpuConfig config = {}, cuda::FakeGpuStats* stats = nullptr) {
  cuda::FakeGpu gpu(config);
  CudaBackend backend(gpu.Seams(), options);
  Result<RunOutput> out = backend.Run(plan, run);
  if (stats != nullptr) *stats = gpu.stats();
  return out;
}

// The fused plans on the GEMM core (--fused-engine core), in loopback or a
// GPU per rank.
inline CudaBackendOptions CoreEngine(bool loopback) {
  CudaBackendOptions o;
  o.fused_engine = FusedEngine::kCore;
  o.loopback = loopback;
  return o;
}

// `plan` verified on the core: a warmup and two timed iterations under
// schedule `seed`.
inline Result<RunOutput> RunOnCore(const Plan& plan, bool loopback, uint64_t seed, cuda::FakeGpuStats* stats) {
  RunOptions run = CudaVerifyOnce();
  run.warmup = 1;
  run.iters = 2;
  cuda::FakeGpuConfig config;
  config.schedule_seed = seed;
  return RunOnFake(plan, run, CoreEngine(loopback), config, stats);
}

// A layer plan's fused steps on the core verify, and launch the core, under
// every schedule seed.
inline void ExpectCoreLayerVerifies(const Plan& plan, std::initializer_list<uint64_t> seeds) {
  for (uint64_t seed : seeds) {
    cuda::FakeGpuConfig config;
    config.schedule_seed = seed;
    cuda::FakeGpuStats stats;
    auto out = RunOnFake(plan, CudaVerifyOnce(), CoreEngine(true), config, &stats);
    ASSERT_TRUE(out.ok()) << "seed " << seed << ": " << out.status().message();
    EXPECT_TRUE(out->verify.ok) << "seed " << seed << ": " << out->verify.max_rel_error;
    EXPECT_GT(stats.core_launches, 0) << "seed " << seed;
  }
}

}  // namespace braid::testing
