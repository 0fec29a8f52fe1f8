#include <gtest/gtest.h>

#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_guide.h"

namespace braid {
namespace {

TEST(SimGuide, PredictsWhatTheSimBackendMeasures) {
  const Workload w{Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, 8};
  Result<Guide> guide = MakeSimGuide(w, "h100-sxm");
  ASSERT_TRUE(guide.ok()) << guide.status().message();
  Result<std::unique_ptr<Backend>> sim = MakeSimBackend("h100-sxm");
  ASSERT_TRUE(sim.ok());
  OverlapConfig chunked;
  chunked.algorithm = Algorithm::kChunked;
  chunked.chunks = 4;
  chunked.comm_sms = 16;
  RunOptions one_iteration;
  one_iteration.warmup = 0;
  one_iteration.iters = 1;
  for (const OverlapConfig& c : {OverlapConfig{}, chunked}) {
    Result<double> predicted = (*guide)(c);
    ASSERT_TRUE(predicted.ok()) << predicted.status().message();
    Result<RunOutput> out = (*sim)->Run(*BuildPlan(w, c), one_iteration);
    ASSERT_TRUE(out.ok());
    EXPECT_DOUBLE_EQ(*predicted, double(out->iteration_ns.at(0))) << c.Describe();
  }
}

TEST(SimGuide, UnknownTopologyAndInvalidConfigsAreErrors) {
  const Workload w{Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, 8};
  EXPECT_FALSE(MakeSimGuide(w, "no-such-topology").ok());
  Result<Guide> guide = MakeSimGuide(w, "h100-sxm");
  ASSERT_TRUE(guide.ok());
  OverlapConfig bad;
  bad.algorithm = Algorithm::kChunked;
  bad.chunks = 0;
  EXPECT_FALSE((*guide)(bad).ok());
}

}  // namespace
}  // namespace braid
