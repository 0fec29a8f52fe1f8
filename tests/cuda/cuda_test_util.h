// Helpers shared by the cuda backend's fake-driven tests.
#pragma once

#include <gtest/gtest.h>

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

}  // namespace braid::testing
