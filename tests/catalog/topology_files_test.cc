#include "braid/topology_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace braid {
namespace topology_files_test {
namespace {

using ::testing::HasSubstr;

constexpr const char* kGood = R"(
name = "two-pcie"
gpu = "l40s"
gpus_per_node = 2
nodes = 1
[intra]
kind = "pcie"
peer_to_peer = true
bandwidth_gbs = 25.0
latency_us = 8.0
source = "a test"
)";

TEST(TopologyFiles, EveryShippedTopologyParses) {
  const auto names = BuiltinTopologyNames();
  ASSERT_GE(names.size(), 3u);
  for (const std::string& n : names) {
    auto t = LoadTopology(n);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->name, n);
    EXPECT_GT(t->intra.bandwidth_gbs, 0);
    EXPECT_FALSE(t->intra.source.empty()) << n << " has no source for its numbers";
  }
}

TEST(TopologyFiles, H100IsEightGpusOnNvSwitch) {
  auto t = LoadTopology("h100-sxm");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->total_gpus(), 8);
  EXPECT_EQ(t->intra.kind, LinkKind::kNvSwitch);
  EXPECT_DOUBLE_EQ(t->intra.bandwidth_gbs, 450.0);
  EXPECT_TRUE(t->CheckFits(8).ok());
  EXPECT_THAT(t->CheckFits(9).message(), HasSubstr("needs more GPUs than topology 'h100-sxm' has (8)"));
}

TEST(TopologyFiles, PcieWithoutPeerToPeerIsRead) {
  auto t = LoadTopology("rtx4090-pcie");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->intra.kind, LinkKind::kPcie);
  EXPECT_FALSE(t->intra.peer_to_peer);
}

TEST(TopologyFiles, ParsesAUserFile) {
  auto t = ParseTopologyToml(kGood, "mine.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->gpus_per_node, 2);
  EXPECT_TRUE(t->intra.peer_to_peer);
}

TEST(TopologyFiles, UnknownNameListsTheKnownOnes) {
  auto t = LoadTopology("h900-sxm");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().is_user_error());
  EXPECT_THAT(t.status().message(), HasSubstr("unknown topology 'h900-sxm' (known: "));
  EXPECT_THAT(t.status().message(), HasSubstr("h100-sxm"));
}

TEST(TopologyFiles, MissingFileIsNamed) {
  auto t = LoadTopology("/nonexistent/dir/x.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(),
              HasSubstr("cannot open topology file '/nonexistent/dir/x.toml': No such file or directory"));
}

TEST(TopologyFiles, SyntaxErrorNamesFileAndLine) {
  auto t = ParseTopologyToml("name = \"x\"\ngpus_per_node = = 3\n", "bad.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("bad.toml:2:"));
}

TEST(TopologyFiles, WrongFieldTypeNamesLineAndField) {
  std::string text = kGood;
  text.replace(text.find("25.0"), 4, "\"fast\"");
  auto t = ParseTopologyToml(text, "t.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("t.toml:9:17:"));
  EXPECT_THAT(t.status().message(), HasSubstr("intra.bandwidth_gbs must be a number from 0.001 to 1e+06"));
}

// Issue 27 point 4: a link of 1e-300 GB/s made the simulated makespan
// overflow (-9.22e18 ns, exit 0).
TEST(TopologyFiles, LinkFiguresOutsideAnyRealLinkAreRefused) {
  for (const char* bad : {"1e-300", "0.0001", "1e7"}) {
    std::string text = kGood;
    text.replace(text.find("25.0"), 4, bad);
    auto t = ParseTopologyToml(text, "t.toml");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_THAT(t.status().message(), HasSubstr("intra.bandwidth_gbs must be a number from 0.001 to 1e+06")) << bad;
  }
}

TEST(TopologyFiles, MissingFieldsAndTablesAreNamed) {
  std::string no_lat = kGood;
  no_lat.erase(no_lat.find("latency_us"), std::string("latency_us = 8.0\n").size());
  EXPECT_THAT(ParseTopologyToml(no_lat, "t.toml").status().message(), HasSubstr("missing field 'intra.latency_us'"));
  EXPECT_THAT(ParseTopologyToml("name=\"x\"\ngpu=\"y\"\ngpus_per_node=2\nnodes=1\n", "t.toml").status().message(),
              HasSubstr("missing table [intra]"));
  std::string two_nodes = kGood;
  two_nodes.replace(two_nodes.find("nodes = 1"), 9, "nodes = 2");
  EXPECT_THAT(ParseTopologyToml(two_nodes, "t.toml").status().message(), HasSubstr("missing table [inter]"));
}

TEST(TopologyFiles, MisspeltFieldsAreRejected) {
  std::string text = kGood;
  text.replace(text.find("peer_to_peer"), 12, "peer_to_per");
  EXPECT_THAT(ParseTopologyToml(text, "t.toml").status().message(),
              HasSubstr("t.toml:8:15: unknown field 'intra.peer_to_per' (known: intra.kind"));
  EXPECT_THAT(ParseTopologyToml("gpus = 8\n" + std::string(kGood), "t.toml").status().message(),
              HasSubstr("unknown field 'gpus'"));
}

TEST(TopologyFiles, UnknownLinkKindListsKnownOnes) {
  std::string text = kGood;
  text.replace(text.find("\"pcie\""), 6, "\"carrier-pigeon\"");
  auto t = ParseTopologyToml(text, "t.toml");
  EXPECT_THAT(t.status().message(), HasSubstr("t.toml:7:"));
  EXPECT_THAT(t.status().message(), HasSubstr("unknown link kind 'carrier-pigeon'"));
}

TEST(TopologyFiles, NonAsciiOutsideStringsIsRejectedWithItsPosition) {
  auto t = ParseTopologyToml(
      "name = \"x\"\n[in \xC3\x97"
      "16]\n",
      "u.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("u.toml:2:5: expected ']' to close the table header"));
}

TEST(TopologyFiles, NonAsciiInsideStringsAndCommentsIsFine) {
  std::string text = kGood;
  text.replace(text.find("\"a test\""), 8, "\"8\xC3\x97 A100, \\\"quoted\\\" 'x'\"");
  text += "# comment with \xC2\xB5s\n";
  auto t = ParseTopologyToml(text, "t.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->intra.source, "8\xC3\x97 A100, \"quoted\" 'x'");
}

TEST(TopologyFiles, TableHeaderWithoutKeyIsRejected) {
  auto t = ParseTopologyToml("name = \"x\"\n  [[[a]]]\n", "h.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("h.toml:2:5: expected a key, found '['"));
}

TEST(TopologyFiles, NvlinkPairsAreRead) {
  auto t = LoadTopology("a100-pcie-nvlink-pairs");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->has_pair);
  EXPECT_EQ(t->pair.kind, LinkKind::kNvLink);
  EXPECT_DOUBLE_EQ(t->pair.bandwidth_gbs, 300.0);
  EXPECT_EQ(t->intra.kind, LinkKind::kPcie);
  EXPECT_FALSE(LoadTopology("h100-sxm")->has_pair);
}

// The A800 PCIe is the A100 PCIe with its NVLink bridge capped at 400 GB/s
// (200 per direction): everything else as a100-pcie-nvlink-pairs.
TEST(TopologyFiles, A800PairsAreTheA100PairsWithTheCappedBridge) {
  auto a800 = LoadTopology("a800-pcie-nvlink-pairs");
  auto a100 = LoadTopology("a100-pcie-nvlink-pairs");
  ASSERT_TRUE(a800.ok()) << a800.status().message();
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(a800->gpu, a100->gpu);
  EXPECT_DOUBLE_EQ(a800->pair.bandwidth_gbs, 200.0);
  EXPECT_DOUBLE_EQ(a800->intra.bandwidth_gbs, a100->intra.bandwidth_gbs);
  EXPECT_TRUE(a800->intra.peer_to_peer);
  EXPECT_EQ(a800->gpus_per_node, 8);
}

TEST(TopologyFiles, PairsNeedAnEvenGpuCount) {
  std::string text = kGood;
  text.replace(text.find("gpus_per_node = 2"), 17, "gpus_per_node = 3");
  text += "[pair]\nkind = \"nvlink\"\nbandwidth_gbs = 100.0\nlatency_us = 2.0\nsource = \"x\"\n";
  EXPECT_THAT(ParseTopologyToml(text, "p.toml").status().message(), HasSubstr("gpus_per_node must be even"));
}

TEST(TopologyFiles, NicsPerNodeIsReadOnTheInterNodeLink) {
  auto h = LoadTopology("h100-sxm-2node-ib");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->inter.nics_per_node, 8);
  EXPECT_EQ(h->intra.nics_per_node, 1);
  std::string text = kGood;
  text.replace(text.find("nodes = 1"), 9, "nodes = 2");
  const std::string inter = "[inter]\nkind = \"infiniband\"\nbandwidth_gbs = 50.0\nlatency_us = 6.0\nsource = \"x\"\n";
  auto one = ParseTopologyToml(text + inter, "n.toml");
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->inter.nics_per_node, 1);  // absent: one NIC per node
  auto two = ParseTopologyToml(text + inter + "nics_per_node = 2\n", "n.toml");
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->inter.nics_per_node, 2);
}

// More NICs than GPUs, or NICs on a link inside a node: one clear line.
TEST(TopologyFiles, NicsPerNodeOutsideItsRangeOrTableIsRefused) {
  std::string text = kGood;
  text.replace(text.find("nodes = 1"), 9, "nodes = 2");
  const std::string inter = "[inter]\nkind = \"infiniband\"\nbandwidth_gbs = 50.0\nlatency_us = 6.0\nsource = \"x\"\n";
  EXPECT_THAT(ParseTopologyToml(text + inter + "nics_per_node = 3\n", "n.toml").status().message(),
              HasSubstr("inter.nics_per_node"));
  EXPECT_THAT(ParseTopologyToml(text + inter + "nics_per_node = 0\n", "n.toml").status().message(),
              HasSubstr("inter.nics_per_node"));
  std::string intra = kGood;
  intra.replace(intra.find("source = \"a test\""), 17, "source = \"a test\"\nnics_per_node = 1");
  EXPECT_THAT(ParseTopologyToml(intra, "n.toml").status().message(), HasSubstr("unknown field 'intra.nics_per_node'"));
}

}  // namespace
}  // namespace topology_files_test
}  // namespace braid
