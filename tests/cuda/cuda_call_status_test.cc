// CudaCallStatus over the fake runtime: the status kind a failed CUDA call
// gets, and that a failure already reported is not blamed on the next launch.
#include "braid/cuda_call_status.h"

#include <gtest/gtest.h>

#include "braid/cuda_fakes.h"

namespace braid::cuda {
namespace {

TEST(CudaCallStatus, AFailureWhileRunningIsInternalAndNamesTheCall) {
  FakeCudaRuntime rt;
  const Status s = CudaCallStatus(rt, rt.Fail(FakeCudaRuntime::kMemoryAllocation, /*sticky=*/false),
                                  "cudaMalloc(&p, bytes)", "real_cuda_api.cc", 117);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "cudaMalloc(&p, bytes) failed: out of memory (real_cuda_api.cc:117)");
}

TEST(CudaCallStatus, NoDeviceIsUnavailable) {
  FakeCudaRuntime rt;
  const Status s =
      CudaCallStatus(rt, rt.Fail(FakeCudaRuntime::kNoDevice, false), "cudaGetDeviceCount(&n)", "real_cuda_api.cc", 63);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
}

TEST(CudaCallStatus, AHandledFailureIsNotReportedByTheNextLaunchCheck) {
  FakeCudaRuntime rt;
  const Status s = CudaCallStatus(rt, rt.Fail(FakeCudaRuntime::kMemoryAllocation, false), "cudaMalloc(&p, bytes)",
                                  "real_cuda_api.cc", 117);
  ASSERT_FALSE(s.ok());
  // The caller handled it (say, a smaller workspace); the next kernel launches fine.
  EXPECT_EQ(rt.LaunchCheck(), 0);
  EXPECT_TRUE(CudaCallStatus(rt, rt.LaunchCheck(), "LaunchAdd(...)", "real_cuda_api.cc", 136).ok());
}

TEST(CudaCallStatus, AStickyFailureStaysForEveryLaterCheck) {
  FakeCudaRuntime rt;
  const Status s = CudaCallStatus(rt, rt.Fail(FakeCudaRuntime::kIllegalAddress, /*sticky=*/true),
                                  "cudaStreamQuery(S(s))", "real_cuda_api.cc", 104);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(rt.LaunchCheck(), FakeCudaRuntime::kIllegalAddress);
  EXPECT_EQ(rt.LaunchCheck(), FakeCudaRuntime::kIllegalAddress);
}

TEST(CudaCallStatus, SuccessIsOkAndLeavesTheLastErrorAlone) {
  FakeCudaRuntime rt;
  EXPECT_TRUE(CudaCallStatus(rt, 0, "cudaFree(p)", "real_cuda_api.cc", 120).ok());
  EXPECT_EQ(rt.LaunchCheck(), 0);
}

}  // namespace
}  // namespace braid::cuda
