// The sim prices direct's transfers by the route each pair of GPUs has: on
// an NVSwitch every pair has the same bandwidth, so a reduce-scatter whose
// partials each travel once beats the ring that adds them at every hop; on
// NVLink pairs bridged by PCIe most direct transfers cross PCIe, and the
// ring, which only talks to neighbours, wins by far. The tuner can only
// pick the right one per topology if the sim tells them apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid {
namespace {

// llama3-405b's out_proj at seq 8192 on TP8: the partials are 8192×16384.
constexpr Workload kOutProj{Op::kGemmRs, 8192, 16384, 16384, DType::kBf16, 8};

int64_t MakespanNs(const std::string& topology, Algorithm algo, int chunks) {
  Result<Topology> topo = LoadTopology(topology);
  EXPECT_TRUE(topo.ok()) << topo.status().message();
  if (!topo.ok()) return 0;
  Result<GpuSpec> gpu = LoadGpu(topo->gpu);
  EXPECT_TRUE(gpu.ok()) << gpu.status().message();
  if (!gpu.ok()) return 0;
  SimBackend sim(*gpu, *topo);
  OverlapConfig c;
  c.algorithm = algo;
  c.chunks = chunks;
  c.comm_lanes = 2;
  c.comm_engine = CommEngine::kCopyEngine;
  Result<Plan> plan = BuildPlan(kOutProj, c);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return 0;
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  Result<RunOutput> out = sim.Run(*plan, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->iteration_ns.at(0) : 0;
}

int64_t BestRingNs(const std::string& topology) {
  return std::min(MakespanNs(topology, Algorithm::kRing, 1), MakespanNs(topology, Algorithm::kRing, 2));
}

TEST(SimDirect, OnAnNvSwitchTheDirectReduceScatterBeatsTheRing) {
  const int64_t direct = MakespanNs("h100-sxm", Algorithm::kDirect, 1), ring = BestRingNs("h100-sxm");
  ASSERT_GT(direct, 0);
  ASSERT_GT(ring, 0);
  // Measured 974 µs against 1,010 µs.
  EXPECT_LT(double(direct), 0.98 * double(ring)) << "direct " << direct << " ns, ring " << ring << " ns";
}

TEST(SimDirect, OnNvLinkPairsTheRingBeatsTheDirectReduceScatterByFar) {
  const int64_t direct = MakespanNs("a100-pcie-nvlink-pairs", Algorithm::kDirect, 1);
  const int64_t ring = BestRingNs("a100-pcie-nvlink-pairs");
  ASSERT_GT(ring, 0);
  ASSERT_GT(direct, 0);
  // Measured 13.8 ms against 9.07 ms: six of a rank's seven peers are over PCIe.
  EXPECT_GT(double(direct), 1.2 * double(ring)) << "direct " << direct << " ns, ring " << ring << " ns";
}

}  // namespace
}  // namespace braid
