#include "braid/gpu_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "braid/topology_files.h"

namespace braid {
namespace gpu_files_test {
namespace {

using ::testing::HasSubstr;

constexpr const char* kGood = R"(name = "toy"
sm_count = 4
tflops_bf16 = 10.0
tflops_fp16 = 10.0
tflops_fp32 = 5.0
hbm_gbs = 100.0
hbm_efficiency = 0.8
tile_m = 128
tile_n = 128
efficiency_bf16 = 0.8
efficiency_fp16 = 0.8
efficiency_fp32 = 0.7
launch_us = 2.0
event_wait_us = 1.0
copy_engines = 2
source = "a test"
)";

TEST(GpuFiles, EveryShippedGpuParsesAndCarriesItsSources) {
  const auto names = BuiltinGpuNames();
  for (const char* want : {"h100-sxm", "h200-sxm", "b200-sxm", "a100-sxm", "a800-sxm", "rtx4090", "l40s"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  for (const std::string& n : names) {
    auto g = LoadGpu(n);
    ASSERT_TRUE(g.ok()) << g.status().message();
    EXPECT_EQ(g->name, n);
    EXPECT_GT(g->sm_count, 0);
    EXPECT_FALSE(g->source.empty()) << n;
  }
}

TEST(GpuFiles, EveryTopologyNamesAKnownGpu) {
  for (const std::string& n : BuiltinTopologyNames()) {
    auto t = LoadTopology(n);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_TRUE(LoadGpu(t->gpu).ok()) << n << " names gpu " << t->gpu;
  }
}

TEST(GpuFiles, H100FiguresAreTheDatasheets) {
  auto g = LoadGpu("h100-sxm");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->sm_count, 132);
  EXPECT_DOUBLE_EQ(g->tflops_bf16, 989.4);
  EXPECT_DOUBLE_EQ(g->hbm_gbs, 3350.0);
  EXPECT_DOUBLE_EQ(g->PeakTflops(DType::kFp32), 494.7);
  EXPECT_DOUBLE_EQ(g->PeakTflops(DType::kFp8E4m3), 1978.9);  // 3958 with sparsity, halved
}

TEST(GpuFiles, FP8TensorCoresAreWhereTheDatasheetsSayAndNowhereElse) {
  for (const char* name : {"h100-sxm", "h200-sxm", "b200-sxm", "l40s", "rtx4090"}) {
    auto g = LoadGpu(name);
    ASSERT_TRUE(g.ok()) << name;
    EXPECT_TRUE(g->CheckSupports(DType::kFp8E4m3).ok()) << name;
  }
  for (const char* name : {"a100-sxm", "a100-pcie", "a800-sxm"}) {
    auto g = LoadGpu(name);
    ASSERT_TRUE(g.ok()) << name;
    EXPECT_FALSE(g->CheckSupports(DType::kFp8E4m3).ok()) << name;
  }
}

TEST(GpuFiles, B200FiguresAreTheDatasheets) {
  auto g = LoadGpu("b200-sxm");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->sm_count, 148);
  EXPECT_DOUBLE_EQ(g->tflops_bf16, 2250.0);
  EXPECT_DOUBLE_EQ(g->PeakTflops(DType::kFp32), 1125.0);
  EXPECT_DOUBLE_EQ(g->hbm_gbs, 8000.0);
  EXPECT_DOUBLE_EQ(g->PeakTflops(DType::kFp8E4m3), 4500.0);
  EXPECT_TRUE(g->CheckSupports(DType::kFp8E5m2).ok());
  auto t = LoadTopology("b200-sxm");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->total_gpus(), 8);
  EXPECT_EQ(t->nccl_channels, 32);
  EXPECT_EQ(t->intra.kind, LinkKind::kNvSwitch);
  EXPECT_DOUBLE_EQ(t->intra.bandwidth_gbs, 900.0);  // NVLink 5: 18 links x 50 GB/s
}

TEST(GpuFiles, AGpuWithoutFp8TensorCoresRefusesFp8) {
  auto a100 = LoadGpu("a100-sxm");
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(a100->tflops_fp8, 0);
  EXPECT_TRUE(a100->CheckSupports(DType::kBf16).ok());
  const Status s = a100->CheckSupports(DType::kFp8E4m3);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("a100-sxm has no fp8_e4m3 tensor cores"));
  auto toy = ParseGpuToml(std::string(kGood) + "tflops_fp8 = 20.0\nefficiency_fp8 = 0.7\n", "toy.toml");
  ASSERT_TRUE(toy.ok()) << toy.status().message();
  EXPECT_EQ(toy->PeakTflops(DType::kFp8E5m2), 20.0);
  EXPECT_EQ(toy->Efficiency(DType::kFp8E4m3), 0.7);
  EXPECT_TRUE(toy->CheckSupports(DType::kFp8E4m3).ok());
  // One FP8 key without the other is an incomplete figure.
  auto half = ParseGpuToml(std::string(kGood) + "tflops_fp8 = 20.0\n", "half.toml");
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(half.status().message(), HasSubstr("efficiency_fp8"));
}

TEST(GpuFiles, ParsesAUserFile) {
  auto g = ParseGpuToml(kGood, "toy.toml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->copy_engines, 2);
  EXPECT_DOUBLE_EQ(g->Efficiency(DType::kFp32), 0.7);
}

TEST(GpuFiles, KernelCandidatesAndFittedFiguresParse) {
  const std::string with = std::string(kGood) +
                           "board_rate = 0.9\nsm_boost_exponent = 0.3\nhbm_ce_weight = 1.5\n"
                           "[[kernel]]\ntile_m = 128\ntile_n = 256\nefficiency = 0.8\n"
                           "[[kernel]]\ntile_m = 64\ntile_n = 128\nefficiency = 0.5\n";
  auto g = ParseGpuToml(with, "toy.toml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->kernels.size(), 2u);
  EXPECT_EQ(g->kernels[1].tile_m, 64);
  EXPECT_DOUBLE_EQ(g->kernels[0].efficiency, 0.8);
  EXPECT_DOUBLE_EQ(g->board_rate, 0.9);
  EXPECT_DOUBLE_EQ(g->hbm_ce_weight, 1.5);
  EXPECT_DOUBLE_EQ(g->hbm_copy_weight, 1.0);  // absent: the default
  // Without them, the single-tile model's defaults.
  auto plain = ParseGpuToml(kGood, "toy.toml");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->kernels.empty());
  EXPECT_DOUBLE_EQ(plain->board_rate, 1.0);

  auto no_eff = ParseGpuToml(std::string(kGood) + "[[kernel]]\ntile_m = 128\ntile_n = 256\n", "toy.toml");
  ASSERT_FALSE(no_eff.ok());
  EXPECT_THAT(no_eff.status().message(), HasSubstr("kernel.efficiency"));
  auto too_fast =
      ParseGpuToml(std::string(kGood) + "[[kernel]]\ntile_m = 128\ntile_n = 256\nefficiency = 1.5\n", "toy.toml");
  EXPECT_FALSE(too_fast.ok());
  auto bad_rate = ParseGpuToml(std::string(kGood) + "board_rate = 0\n", "toy.toml");
  ASSERT_FALSE(bad_rate.ok());
  EXPECT_THAT(bad_rate.status().message(), HasSubstr("board_rate"));
  auto not_table = ParseGpuToml(std::string(kGood) + "kernel = 3\n", "toy.toml");
  ASSERT_FALSE(not_table.ok());
  EXPECT_THAT(not_table.status().message(), HasSubstr("[[kernel]]"));
}

TEST(GpuFiles, LoopbackCopyEfficiencyIsAShareOfTheHbmRate) {
  EXPECT_DOUBLE_EQ(ParseGpuToml(kGood, "toy.toml")->loopback_copy_efficiency, 1.0);  // absent: one big copy's rate
  auto half = ParseGpuToml(std::string(kGood) + "loopback_copy_efficiency = 0.5\n", "toy.toml");
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_DOUBLE_EQ(half->loopback_copy_efficiency, 0.5);
  for (const char* v : {"0.0", "1.5", "-0.2"}) {
    auto bad = ParseGpuToml(std::string(kGood) + "loopback_copy_efficiency = " + v + "\n", "toy.toml");
    ASSERT_FALSE(bad.ok()) << v;
    EXPECT_THAT(bad.status().message(), HasSubstr("loopback_copy_efficiency"));
  }
}

TEST(GpuFiles, LoopbackRankLaunchUsIsMicrosecondsUpToOneMillisecond) {
  EXPECT_DOUBLE_EQ(ParseGpuToml(kGood, "toy.toml")->loopback_rank_launch_us, 0.0);  // absent: free, as before
  for (const char* v : {"0.0", "5.0", "1000.0"}) {
    auto ok = ParseGpuToml(std::string(kGood) + "loopback_rank_launch_us = " + v + "\n", "toy.toml");
    ASSERT_TRUE(ok.ok()) << v << ": " << ok.status().message();
    EXPECT_DOUBLE_EQ(ok->loopback_rank_launch_us, std::stod(v));
  }
  for (const char* v : {"-0.5", "1000.5", "\"5\""}) {
    auto bad = ParseGpuToml(std::string(kGood) + "loopback_rank_launch_us = " + v + "\n", "toy.toml");
    ASSERT_FALSE(bad.ok()) << v;
    EXPECT_THAT(bad.status().message(), HasSubstr("loopback_rank_launch_us"));
    EXPECT_THAT(bad.status().message(), HasSubstr("toy.toml"));
    EXPECT_EQ(bad.status().message().find('\n'), std::string::npos);  // one line
  }
}

TEST(GpuFiles, LoopbackLaunchUsIsMicrosecondsUpToOneMillisecond) {
  EXPECT_DOUBLE_EQ(ParseGpuToml(kGood, "toy.toml")->loopback_launch_us, 0.0);  // absent: launches free, as before
  for (const char* v : {"0.0", "4.5", "1000.0"}) {
    auto ok = ParseGpuToml(std::string(kGood) + "loopback_launch_us = " + v + "\n", "toy.toml");
    ASSERT_TRUE(ok.ok()) << v << ": " << ok.status().message();
    EXPECT_DOUBLE_EQ(ok->loopback_launch_us, std::stod(v));
  }
  for (const char* v : {"-1.0", "1000.5", "\"5\""}) {
    auto bad = ParseGpuToml(std::string(kGood) + "loopback_launch_us = " + v + "\n", "toy.toml");
    ASSERT_FALSE(bad.ok()) << v;
    EXPECT_THAT(bad.status().message(), HasSubstr("loopback_launch_us"));
  }
}

TEST(GpuFiles, LoopbackOverlapIsAShareFromZeroToOne) {
  EXPECT_DOUBLE_EQ(ParseGpuToml(kGood, "toy.toml")->loopback_overlap, 1.0);  // absent: fully hidden, as before
  for (const char* v : {"0.0", "0.25", "1.0"}) {
    auto ok = ParseGpuToml(std::string(kGood) + "loopback_overlap = " + v + "\n", "toy.toml");
    ASSERT_TRUE(ok.ok()) << v << ": " << ok.status().message();
    EXPECT_DOUBLE_EQ(ok->loopback_overlap, std::stod(v));
  }
  for (const char* v : {"1.5", "-0.2"}) {
    auto bad = ParseGpuToml(std::string(kGood) + "loopback_overlap = " + v + "\n", "toy.toml");
    ASSERT_FALSE(bad.ok()) << v;
    EXPECT_THAT(bad.status().message(), HasSubstr("loopback_overlap"));
  }
}

TEST(GpuFiles, MalformedFieldNamesFileLineAndField) {
  std::string bad = kGood;
  bad.replace(bad.find("sm_count = 4"), 12, "sm_count = -4");
  auto g = ParseGpuToml(bad, "toy.toml");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("toy.toml:2:"));
  EXPECT_THAT(g.status().message(), HasSubstr("sm_count"));
}

TEST(GpuFiles, MissingSourceIsRefused) {
  std::string bad = kGood;
  bad.erase(bad.find("source"));
  auto g = ParseGpuToml(bad, "toy.toml");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("source"));
}

TEST(GpuFiles, MisspeltFieldListsTheKnownOnes) {
  std::string bad = kGood;
  bad.replace(bad.find("hbm_gbs"), 7, "hbm_gb");
  auto g = ParseGpuToml(bad, "toy.toml");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("hbm_gb"));
  EXPECT_THAT(g.status().message(), HasSubstr("hbm_gbs"));
}

TEST(GpuFiles, UnknownNameListsTheKnownOnes) {
  auto g = LoadGpu("b300");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(g.status().message(), HasSubstr("h100-sxm"));
  EXPECT_THAT(g.status().message(), HasSubstr("l40s"));
}

TEST(GpuFiles, CalibrationPointsParseWithSources) {
  auto p = BuiltinCalibrationPoints();
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->gemm.size(), 17u);
  EXPECT_EQ(p->collective.size(), 22u);
  for (const auto& g : p->gemm) EXPECT_FALSE(g.source.empty());
  for (const auto& c : p->collective) EXPECT_FALSE(c.source.empty());
}

TEST(GpuFiles, NewTopologiesAreShipped) {
  for (const char* n : {"h200-sxm", "b200-sxm", "a800-sxm", "l40s-pcie", "h100-sxm-2node-ib"}) {
    auto t = LoadTopology(n);
    ASSERT_TRUE(t.ok()) << n << ": " << t.status().message();
  }
  auto ib = LoadTopology("h100-sxm-2node-ib");
  ASSERT_TRUE(ib.ok());
  EXPECT_EQ(ib->total_gpus(), 16);
  EXPECT_EQ(ib->inter.kind, LinkKind::kInfiniBand);
}

constexpr const char* kTopo = R"(name = "t"
gpu = "h100-sxm"
gpus_per_node = 8
nodes = 1
nccl_channels = 12
[intra]
kind = "nvswitch"
bandwidth_gbs = 450.0
latency_us = 2.0
simple_efficiency = 0.8
simple_latency_us = 3.0
ll_efficiency = 0.3
nvls_efficiency = 0.6
nvls_latency_us = 30.0
source = "a test"
)";

TEST(SimTopologyFiles, ProtocolFieldsAreRead) {
  auto t = ParseTopologyToml(kTopo, "t.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->nccl_channels, 12);
  EXPECT_DOUBLE_EQ(t->intra.simple_latency_us, 3.0);
  EXPECT_DOUBLE_EQ(t->intra.ll_efficiency, 0.3);
  EXPECT_DOUBLE_EQ(t->intra.nvls_latency_us, 30.0);
}

TEST(SimTopologyFiles, ProtocolFieldsAreOptionalWithDefaults) {
  auto t = LoadTopology("rtx4090-pcie");
  ASSERT_TRUE(t.ok());
  EXPECT_DOUBLE_EQ(t->intra.nvls_efficiency, 0.0);
  EXPECT_DOUBLE_EQ(t->intra.ll_efficiency, 0.25);
}

TEST(SimTopologyFiles, BadProtocolFieldNamesFileLineAndField) {
  std::string bad = kTopo;
  bad.replace(bad.find("ll_efficiency = 0.3"), 19, "ll_efficiency = 3.0");
  auto t = ParseTopologyToml(bad, "t.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), ::testing::HasSubstr("t.toml:12:17"));
  EXPECT_THAT(t.status().message(), ::testing::HasSubstr("intra.ll_efficiency"));
  std::string zero = kTopo;
  zero.replace(zero.find("nccl_channels = 12"), 18, "nccl_channels = 0");
  auto z = ParseTopologyToml(zero, "t.toml");
  ASSERT_FALSE(z.ok());
  EXPECT_THAT(z.status().message(), ::testing::HasSubstr("nccl_channels"));
}

// NVLS is the switch's own reduction: figures for it on a link without an
// NVSwitch are refused naming the file, line and field, not ignored.
TEST(SimTopologyFiles, NvlsOnALinkWithoutNvSwitchNamesFileLineAndField) {
  for (const char* kind : {"pcie", "nvlink", "infiniband"}) {
    std::string bad = kTopo;
    bad.replace(bad.find("kind = \"nvswitch\""), 17, std::string("kind = \"") + kind + "\"");
    auto t = ParseTopologyToml(bad, "t.toml");
    ASSERT_FALSE(t.ok()) << kind;
    EXPECT_THAT(t.status().message(), ::testing::HasSubstr("t.toml:13:")) << kind;
    EXPECT_THAT(t.status().message(), ::testing::HasSubstr("intra.nvls_efficiency")) << kind;
    EXPECT_THAT(t.status().message(), ::testing::HasSubstr(kind)) << kind;
    EXPECT_EQ(t.status().message().find('\n'), std::string::npos);
  }
  std::string latency_only = kTopo;
  latency_only.replace(latency_only.find("kind = \"nvswitch\""), 17, "kind = \"pcie\"");
  latency_only.erase(latency_only.find("nvls_efficiency = 0.6\n"), 22);
  auto t = ParseTopologyToml(latency_only, "t.toml");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), ::testing::HasSubstr("intra.nvls_latency_us"));
}

// The writer beside the reader: every shipped GPU file, written back,
// reads as the same GPU (numbers to 6 significant digits).
TEST(SimGpuFiles, EveryBuiltinGpuRoundTripsThroughTheWriter) {
  for (const std::string& name : BuiltinGpuNames()) {
    auto g = LoadGpu(name);
    ASSERT_TRUE(g.ok()) << name << ": " << g.status().message();
    auto back = ParseGpuToml(GpuToml(*g), name + " written");
    ASSERT_TRUE(back.ok()) << name << ": " << back.status().message();
    EXPECT_EQ(back->name, g->name);
    EXPECT_EQ(back->sm_count, g->sm_count);
    EXPECT_EQ(back->source, g->source);
    for (auto [a, b] : {std::pair{back->tflops_bf16, g->tflops_bf16},
                        {back->hbm_gbs, g->hbm_gbs},
                        {back->efficiency_bf16, g->efficiency_bf16},
                        {back->tflops_fp8, g->tflops_fp8},
                        {back->loopback_copy_efficiency, g->loopback_copy_efficiency},
                        {back->loopback_overlap, g->loopback_overlap},
                        {back->loopback_launch_us, g->loopback_launch_us},
                        {back->loopback_rank_launch_us, g->loopback_rank_launch_us},
                        {back->fused_gemm_efficiency, g->fused_gemm_efficiency},
                        {back->sm_copy_gbs, g->sm_copy_gbs},
                        {back->error_band.gemm, g->error_band.gemm}}) {
      EXPECT_NEAR(a, b, std::abs(b) * 1e-5) << name;
    }
    EXPECT_EQ(back->error_band.gemm_assumed, g->error_band.gemm_assumed) << name;
    ASSERT_EQ(back->kernels.size(), g->kernels.size()) << name;
    for (size_t i = 0; i < g->kernels.size(); ++i) {
      EXPECT_EQ(back->kernels[i].tile_m, g->kernels[i].tile_m) << name;
      EXPECT_NEAR(back->kernels[i].efficiency, g->kernels[i].efficiency, 1e-5) << name;
    }
  }
}

TEST(SimTopologyFiles, NvlsChannelsAreReadAndChecked) {
  std::string with = kTopo;
  with.replace(with.find("nvls_latency_us = 30.0\n"), 23, "nvls_latency_us = 30.0\nnvls_channels = 16\n");
  auto t = ParseTopologyToml(with, "t.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->intra.nvls_channels, 16);
  // Absent: 0, the topology's nccl_channels (as before the field).
  EXPECT_EQ(ParseTopologyToml(kTopo, "t.toml")->intra.nvls_channels, 0);
  // Impossible counts, channels without an NVLS rate, and a zero NVLS rate
  // each name the file, line and field in one line.
  const std::pair<std::string, std::string> bad[] = {
      {"nvls_channels = 16", "nvls_channels = 0"},        {"nvls_channels = 16", "nvls_channels = 65"},
      {"nvls_efficiency = 0.6", "nvls_efficiency = 0.0"}, {"nvls_efficiency = 0.6", "nvls_efficiency = -0.5"},
      {"nvls_efficiency = 0.6", "nvls_efficiency = 1.5"},
  };
  for (const auto& [from, to] : bad) {
    std::string text = with;
    text.replace(text.find(from), from.size(), to);
    auto r = ParseTopologyToml(text, "t.toml");
    ASSERT_FALSE(r.ok()) << to;
    const std::string field = to.substr(0, to.find(' '));
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr("t.toml:")) << to;
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr("intra." + field)) << to;
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << to;
  }
  std::string no_rate = with;
  no_rate.erase(no_rate.find("nvls_efficiency = 0.6\n"), 22);
  auto r = ParseTopologyToml(no_rate, "t.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("intra.nvls_channels"));
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("nvls_efficiency"));
  // On a link without an NVSwitch the count is refused like the rate.
  std::string pcie = with;
  pcie.replace(pcie.find("kind = \"nvswitch\""), 17, "kind = \"pcie\"");
  pcie.erase(pcie.find("nvls_efficiency = 0.6\n"), 22);
  pcie.erase(pcie.find("nvls_latency_us = 30.0\n"), 23);
  auto p = ParseTopologyToml(pcie, "t.toml");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), ::testing::HasSubstr("intra.nvls_channels"));
  EXPECT_THAT(p.status().message(), ::testing::HasSubstr("nvswitch"));
}

}  // namespace
}  // namespace gpu_files_test
}  // namespace braid
