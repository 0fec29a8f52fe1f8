// NVLink domains beyond a node (GB200 NVL72) and rails on multi-node HGX
// H200 / B200 files: what loads, which link a TP group runs on, and the
// topology files refused at parse time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "braid/sim_calibration.h"
#include "braid/sim_models.h"
#include "braid/topology_files.h"

namespace braid::sim {
namespace topology_domains_test {
namespace {

using ::testing::HasSubstr;

Topology Topo(const char* n) {
  auto t = LoadTopology(n);
  EXPECT_TRUE(t.ok()) << n << ": " << t.status().message();
  return t.ok() ? *t : Topology{};
}

double BusBw(const Topology& t, int64_t bytes, int ranks) {
  return PredictCollective(t, CollectiveKind::kAllReduce, bytes, ranks).busbw_gbps;
}

constexpr int64_t kGiB = int64_t(1) << 30;

TEST(SimTopologyDomains, NewFilesLoad) {
  const Topology nvl = Topo("gb200-nvl72");
  EXPECT_EQ(nvl.gpus_per_node, 4);
  EXPECT_EQ(nvl.nodes, 18);
  EXPECT_EQ(nvl.total_gpus(), 72);
  EXPECT_EQ(nvl.domain_gpus(), 72);
  EXPECT_EQ(nvl.domains(), 1);
  EXPECT_DOUBLE_EQ(nvl.intra.bandwidth_gbs, 900.0);
  for (auto [name, nodes, nvlink_gbs] : {std::tuple{"h200-sxm-2node-ib", 2, 450.0},
                                         {"h200-sxm-4node-ib", 4, 450.0},
                                         {"b200-sxm-2node-ib", 2, 900.0},
                                         {"b200-sxm-4node-ib", 4, 900.0}}) {
    const Topology t = Topo(name);
    EXPECT_EQ(t.nodes, nodes) << name;
    EXPECT_EQ(t.domain_gpus(), 8) << name;  // NVLink stops at the HGX board
    EXPECT_EQ(t.domains(), nodes) << name;
    EXPECT_EQ(t.inter.nics_per_node, 8) << name;
    EXPECT_EQ(t.inter.kind, LinkKind::kInfiniBand) << name;
    EXPECT_DOUBLE_EQ(t.intra.bandwidth_gbs, nvlink_gbs) << name;
    EXPECT_FALSE(t.inter.source.empty()) << name;
  }
}

// A TP group spanning NVL72 compute trays stays on NVLink: GPU 0 (tray 0) and
// GPU 70 (tray 17) are joined by `intra`, and so is every ring up to 72.
TEST(SimTopologyDomains, Nvl72TpGroupsAcrossTraysRouteOnNvLink) {
  const Topology t = Topo("gb200-nvl72");
  EXPECT_EQ(&LinkBetween(t, 0, 4), &t.intra);
  EXPECT_EQ(&LinkBetween(t, 0, 70), &t.intra);
  for (int tp : {8, 16, 32, 64, 72}) EXPECT_EQ(&CollectiveLink(t, tp), &t.intra) << tp;
  EXPECT_TRUE(t.CheckFits(72).ok());
  EXPECT_THAT(t.CheckFits(73).message(), HasSubstr("needs more GPUs than topology 'gb200-nvl72' has (72)"));
}

// An all_reduce over 16 GPUs (four trays) runs at NVLink rates, not at the
// rate of two HGX B200 nodes joined by eight 400 Gb/s rails.
TEST(SimTopologyDomains, Nvl72AllReduceOver16IsNvLinkFast) {
  const Topology nvl = Topo("gb200-nvl72");
  const Topology ib = Topo("b200-sxm-2node-ib");
  const double nvl16 = BusBw(nvl, kGiB, 16), ib16 = BusBw(ib, kGiB, 16);
  EXPECT_GT(nvl16, 600);         // NVLink 5: 900 GB/s × Simple 0.758 = 682
  EXPECT_LT(ib16, 8 * 50.0);     // eight NDR NICs at most
  EXPECT_GT(nvl16, 1.6 * ib16);  // about 1.8× here
  EXPECT_LT(CollectiveTimeNs(nvl, CollectiveKind::kAllGather, 256 << 20, 16),
            0.7 * CollectiveTimeNs(ib, CollectiveKind::kAllGather, 256 << 20, 16));
}

// Calibrated on CoreWeave's full-rack run: 681 GB/s busbw at 1 GiB over 72.
TEST(SimTopologyDomains, Nvl72FullRackMatchesThePublishedRun) {
  const Topology t = Topo("gb200-nvl72");
  EXPECT_NEAR(BusBw(t, kGiB, 72), 681.17, 0.1 * 681.17);
  EXPECT_NEAR(BusBw(t, 8 * kGiB, 72), 834.57, 0.1 * 834.57);
}

// Two or four HGX nodes: a ring per rail, eight rails, so the ring runs at
// about 8 × one NIC's Simple rate; one NIC per node would be an eighth.
TEST(SimTopologyDomains, CrossNodeH200AndB200CollectivesUseEveryRail) {
  for (const char* name : {"h200-sxm-2node-ib", "h200-sxm-4node-ib", "b200-sxm-2node-ib", "b200-sxm-4node-ib"}) {
    Topology t = Topo(name);
    const int ranks = t.total_gpus();
    EXPECT_EQ(&CollectiveLink(t, ranks), &t.inter) << name;
    EXPECT_EQ(&LinkBetween(t, 0, 8), &t.inter) << name;
    EXPECT_EQ(&LinkBetween(t, 0, 7), &t.intra) << name;
    const double nic = t.inter.bandwidth_gbs * t.inter.simple_efficiency;
    const double eight = BusBw(t, kGiB, ranks);
    EXPECT_GT(eight, 0.9 * 8 * nic) << name;
    EXPECT_LE(eight, 8 * nic) << name;
    t.inter.nics_per_node = 1;
    EXPECT_NEAR(BusBw(t, kGiB, ranks) / eight, 1.0 / 8, 0.02) << name;
  }
}

// A rack-scale domain joined to another by a network: each domain's NICs
// are every tray's NICs, so two NVL72 racks with 4 NICs per tray have 72
// rails, and a ring inside one rack never touches them.
TEST(SimTopologyDomains, RailsOfADomainAreItsNodesNics) {
  Topology two = Topo("gb200-nvl72");
  two.nodes = 36;
  two.inter = Topo("b200-sxm-2node-ib").inter;
  two.inter.nics_per_node = 4;
  ASSERT_EQ(two.domains(), 2);
  EXPECT_EQ(&CollectiveLink(two, 72), &two.intra);
  EXPECT_EQ(&CollectiveLink(two, 144), &two.inter);
  EXPECT_EQ(&LinkBetween(two, 71, 72), &two.inter);
  // 72 NDR rails × 47 GB/s far exceed NVLink's Simple 682 GB/s: NVLink caps.
  EXPECT_NEAR(BusBw(two, 8 * kGiB, 144), 900 * 0.758, 0.05 * 900 * 0.758);
}

// ---- files refused at parse time (each one line naming the field) ----

constexpr const char* kRack = R"(name = "rack"
gpu = "b200-sxm"
gpus_per_node = 4
nodes = 18
nvlink_domain_gpus = 72
[intra]
kind = "nvswitch"
bandwidth_gbs = 900.0
latency_us = 1.9
source = "a test"
)";

constexpr const char* kInter = R"([inter]
kind = "infiniband"
bandwidth_gbs = 50.0
latency_us = 6.0
source = "a test"
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string Refusal(const std::string& text) {
  auto t = ParseTopologyToml(text, "bad.toml");
  EXPECT_FALSE(t.ok()) << text;
  std::string m = t.ok() ? "" : t.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  return m;
}

TEST(SimTopologyDomains, TheTestRackParses) {
  auto t = ParseTopologyToml(kRack, "rack.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->domains(), 1);
  auto two = ParseTopologyToml(Replace(kRack, "nodes = 18", "nodes = 36") + kInter + "nics_per_node = 4\n", "r.toml");
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->domains(), 2);
}

TEST(SimTopologyDomains, ADomainOfPartNodesIsRefused) {
  EXPECT_THAT(Refusal(Replace(kRack, "nvlink_domain_gpus = 72", "nvlink_domain_gpus = 70")),
              HasSubstr("bad.toml:5:22: nvlink_domain_gpus 70 must be whole nodes, a multiple of gpus_per_node (4)"));
}

TEST(SimTopologyDomains, ADomainThatDoesNotDivideTheFileIsRefused) {
  EXPECT_THAT(Refusal(Replace(kRack, "nvlink_domain_gpus = 72", "nvlink_domain_gpus = 48")),
              HasSubstr("nvlink_domain_gpus 48 must divide the file's 72 GPUs (nodes 18 x gpus_per_node 4)"));
  EXPECT_THAT(Refusal(Replace(kRack, "nvlink_domain_gpus = 72", "nvlink_domain_gpus = 144")),
              HasSubstr("nvlink_domain_gpus 144 must divide the file's 72 GPUs"));
  EXPECT_THAT(Refusal(Replace(kRack, "nvlink_domain_gpus = 72", "nvlink_domain_gpus = 0")),
              HasSubstr("nvlink_domain_gpus must be an integer between 1 and"));
}

// Without the domain, 18 trays are 18 domains that need a network.
TEST(SimTopologyDomains, SeveralDomainsNeedAnInterLink) {
  EXPECT_THAT(Refusal(Replace(kRack, "nvlink_domain_gpus = 72\n", "")), HasSubstr("missing table [inter]"));
  EXPECT_THAT(Refusal(Replace(kRack, "nodes = 18", "nodes = 36")), HasSubstr("missing table [inter]"));
}

TEST(SimTopologyDomains, NodesMustBeAtLeastOne) {
  EXPECT_THAT(Refusal(Replace(kRack, "nodes = 18", "nodes = 0")),
              HasSubstr("bad.toml:4:9: nodes must be an integer between 1 and 4096"));
  EXPECT_THAT(Refusal(Replace(kRack, "nodes = 18\n", "")), HasSubstr("missing field 'nodes'"));
}

TEST(SimTopologyDomains, NegativeOrAbsentFiguresAreRefused) {
  EXPECT_THAT(Refusal(Replace(kRack, "bandwidth_gbs = 900.0", "bandwidth_gbs = -900.0")),
              HasSubstr("intra.bandwidth_gbs must be a number from"));
  EXPECT_THAT(Refusal(Replace(kRack, "latency_us = 1.9\n", "")), HasSubstr("missing field 'intra.latency_us'"));
  EXPECT_THAT(Refusal(Replace(kRack, "gpus_per_node = 4", "gpus_per_node = -4")),
              HasSubstr("gpus_per_node must be an integer between 1 and"));
  const std::string two = Replace(kRack, "nodes = 18", "nodes = 36");
  EXPECT_THAT(Refusal(two + Replace(kInter, "bandwidth_gbs = 50.0", "bandwidth_gbs = -50.0")),
              HasSubstr("inter.bandwidth_gbs must be a number from"));
}

// Rails must divide the node's GPUs: 3 NICs for 4 GPUs would give one NIC two
// GPUs' rings; 8 NICs for 4 GPUs are more rails than GPUs to start rings.
TEST(SimTopologyDomains, RailsThatDoNotMatchTheGpusPerNodeAreRefused) {
  const std::string two = Replace(kRack, "nodes = 18", "nodes = 36") + kInter;
  EXPECT_THAT(Refusal(two + "nics_per_node = 3\n"),
              HasSubstr("inter.nics_per_node 3 must divide gpus_per_node (4): every NIC serves as many GPUs"));
  EXPECT_THAT(Refusal(two + "nics_per_node = 8\n"),
              HasSubstr("inter.nics_per_node must be an integer between 1 and 4"));
  EXPECT_THAT(Refusal(two + "nics_per_node = 0\n"),
              HasSubstr("inter.nics_per_node must be an integer between 1 and 4"));
  for (int ok : {1, 2, 4}) {
    EXPECT_TRUE(ParseTopologyToml(two + "nics_per_node = " + std::to_string(ok) + "\n", "ok.toml").ok()) << ok;
  }
}

// --tp beyond the file's GPUs: the calibrate path's check names the file.
TEST(SimTopologyDomains, TpBeyondTheFilesGpusIsRefused) {
  EXPECT_THAT(CollectiveRanks(Topo("gb200-nvl72"), 80).status().message(),
              HasSubstr("`tp` 80 needs more GPUs than topology 'gb200-nvl72' has (72)"));
  EXPECT_THAT(CollectiveRanks(Topo("h200-sxm-4node-ib"), 33).status().message(), HasSubstr("has (32)"));
  EXPECT_TRUE(CollectiveRanks(Topo("b200-sxm-4node-ib"), 32).ok());
}

}  // namespace
}  // namespace topology_domains_test
}  // namespace braid::sim
