// NVLink-bridge pairs: GPUs 2k and 2k+1 share a fast link, the rest PCIe.
#include <gtest/gtest.h>

#include "braid/gpu_files.h"
#include "braid/metrics.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid::sim {
namespace {

Topology Pairs() { return *LoadTopology("a100-pcie-nvlink-pairs"); }

TEST(SimPairs, PartnersUseTheBridgeOthersPcie) {
  const Topology t = Pairs();
  ASSERT_TRUE(t.has_pair);
  EXPECT_EQ(LinkBetween(t, 0, 1).kind, LinkKind::kNvLink);
  EXPECT_EQ(LinkBetween(t, 3, 2).kind, LinkKind::kNvLink);
  EXPECT_EQ(LinkBetween(t, 1, 2).kind, LinkKind::kPcie);
  EXPECT_EQ(LinkBetween(t, 0, 7).kind, LinkKind::kPcie);
  const int64_t bytes = int64_t{64} << 20;
  EXPECT_LT(P2pTime(LinkBetween(t, 0, 1), bytes).total_ns() * 5, P2pTime(LinkBetween(t, 1, 2), bytes).total_ns());
}

TEST(SimPairs, ARingIsAsSlowAsItsPcieHops) {
  const Topology t = Pairs();
  const int64_t bytes = int64_t{256} << 20;
  const double two = CollectiveTimeNs(t, CollectiveKind::kAllReduce, bytes, 2);
  const double four = CollectiveTimeNs(t, CollectiveKind::kAllReduce, bytes, 4);
  // Two ranks stay on the bridge; four cross PCIe: busbw drops roughly by the link ratio.
  const double busbw2 = double(bytes) / two * BusBwFactor(CollectiveKind::kAllReduce, 2);
  const double busbw4 = double(bytes) / four * BusBwFactor(CollectiveKind::kAllReduce, 4);
  EXPECT_GT(busbw2 / busbw4, 5.0);
}

TEST(SimPairs, EngineSendsBetweenPartnersFasterThanAcrossPairs) {
  SimBackend sim(*LoadGpu("a100-pcie"), Pairs());
  OverlapConfig c;
  c.algorithm = Algorithm::kRing;
  auto comm_of = [&](int tp) {
    const Plan plan = BuildPlan(Workload{Op::kGemmRs, 8192, 8192, 8192, DType::kBf16, tp}, c).value();
    RunOptions o;
    o.warmup = 0;
    o.iters = 1;
    auto out = sim.Run(plan, o);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return ComputeRunMetrics(out->events).overall[Metric::kComm].p50;
  };
  // P=2: one partner pair on NVLink; P=4: the ring crosses PCIe twice.
  EXPECT_GT(comm_of(4), 5 * comm_of(2));
}

}  // namespace
}  // namespace braid::sim
