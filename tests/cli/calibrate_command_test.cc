// `braid calibrate` through the binary: the JSON of --gemm, --collective and
// --check, the sweep table, --fit's file, one-line bad input with exit 2,
// and --measure's exits (no GPU: 1, nothing written; bad input wins: 2).
// What it computes is tested through its libraries in tests/sim
// (braid/sim_calibration.h) and tests/cuda (braid/gpu_calibration.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "braid/gpu_files.h"
#include "braid/sim_fit.h"
#include "braid/sim_models.h"
#include "cli_runner.h"
#include "shared_dir.h"
#include "temp_dir.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_cli::Braid;
using testing_files::TempDir;

// `braid calibrate ARGS` with every GPU hidden, so that --measure is the
// no-GPU case on any machine.
testing_cli::Outcome Calibrate(const std::string& args) {
  return testing_cli::RunCaptured("CUDA_VISIBLE_DEVICES= " + std::string(BRAID_EXE) + " calibrate " + args);
}

void ExpectUsage(const std::string& args, const std::string& what) {
  const auto o = Calibrate(args);
  EXPECT_EQ(o.code, 2) << args << ": " << o.err;
  EXPECT_THAT(o.err, HasSubstr(what)) << args;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.out, "") << args;
}

std::string MeasuredDir() { return testing_shared::SharedPath(testing_shared::kSharedMeasured).string(); }

TEST(CalibrateCommand, GemmJsonHasTimeAndTflops) {
  const auto o = Calibrate("--gemm 8192,8192,8192 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_GT(j.at("time_ns").get<double>(), 1e6);
  EXPECT_NEAR(j.at("tflops").get<double>(), 797.5, 40);
}

TEST(CalibrateCommand, CollectiveJsonHasBandwidths) {
  const auto o = Calibrate("--collective all_reduce --bytes 1G --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_NEAR(j.at("busbw_gbps").get<double>(), j.at("algbw_gbps").get<double>() * 1.75, 1e-6);
  EXPECT_GT(j.at("time_ns").get<double>(), 0);
}

// What NCCL would run, and on how many SMs: NVLS on 16 CTAs for a large
// all_reduce on one H100 node, the ring on its 24 channels for a small one
// and for reduce_scatter; the sweep's rows say where it switches.
TEST(CalibrateCommand, CollectiveSaysItsAlgorithmAndSms) {
  const auto big = nlohmann::json::parse(Calibrate("--collective all_reduce --bytes 1G --json").out);
  EXPECT_EQ(big.at("algo"), "nvls");
  EXPECT_EQ(big.at("sms"), 16);
  const auto rs = nlohmann::json::parse(Calibrate("--collective reduce_scatter --bytes 1G --json").out);
  EXPECT_EQ(rs.at("algo"), "ring");
  EXPECT_EQ(rs.at("sms"), 24);
  EXPECT_THAT(Calibrate("--collective all_reduce --bytes 1K").out, HasSubstr("; ring on 24 SMs"));
  const auto rows = nlohmann::json::parse(Calibrate("--collective all_reduce -b 1K -e 1G --json").out)["rows"];
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows.front().at("algo"), "ring");
  EXPECT_EQ(rows.back().at("algo"), "nvls");
  // A100 has no NVSwitch multimem.
  const auto a100 =
      nlohmann::json::parse(Calibrate("--collective all_reduce --bytes 1G --topology a100-sxm --json").out);
  EXPECT_EQ(a100.at("algo"), "ring");
}

// Each figure with its expected error (docs/simulator.md, "Error bands"):
// h100-sxm.toml's GEMM bands, h100-sxm's collective bands by size.
TEST(CalibrateCommand, EveryFigureCarriesItsErrorBand) {
  const auto alone = nlohmann::json::parse(Calibrate("--gemm 8192,8192,8192 --json").out);
  EXPECT_DOUBLE_EQ(alone.at("error_band").get<double>(), 0.17);
  EXPECT_FALSE(alone.at("error_band_assumed").get<bool>());
  const auto held = nlohmann::json::parse(Calibrate("--gemm 8192,8192,8192 --held-sms 8 --gpu h200-sxm --json").out);
  EXPECT_DOUBLE_EQ(held.at("error_band").get<double>(), 0.2);
  const auto a100 = nlohmann::json::parse(Calibrate("--gemm 8192,8192,8192 --gpu a100-sxm --json").out);
  EXPECT_TRUE(a100.at("error_band_assumed").get<bool>());
  const auto big = nlohmann::json::parse(Calibrate("--collective all_reduce --bytes 1G --json").out);
  EXPECT_DOUBLE_EQ(big.at("error_band").get<double>(), 0.05);
  const auto sweep =
      nlohmann::json::parse(Calibrate("--collective all_gather -b 1K -e 64M -f 4 --topology b200-sxm --json").out);
  ASSERT_GE(sweep.at("rows").size(), 2u);
  EXPECT_TRUE(sweep["rows"].front().at("error_band_assumed").get<bool>());  // no published small rows on b200-sxm
  EXPECT_DOUBLE_EQ(sweep["rows"].back().at("error_band").get<double>(), 0.07);
  EXPECT_FALSE(sweep["rows"].back().at("error_band_assumed").get<bool>());
  const auto text = Calibrate("--gemm 8192,8192,8192");
  EXPECT_THAT(text.out, HasSubstr("(±17 %)"));
  // --check: the bands the rows give beside the files', none under.
  const auto check = nlohmann::json::parse(Calibrate("--check --json").out);
  ASSERT_GE(check.at("error_bands").size(), 8u);
  for (const auto& b : check["error_bands"]) {
    EXPECT_GE(b.at("in_file").get<double>(), b.at("derived").get<double>()) << b.dump();
  }
}

TEST(CalibrateCommand, CheckPrintsTheTableAndSucceeds) {
  const auto o = Calibrate("--check");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("error %"));
  const auto j = Calibrate("--check --json");
  EXPECT_EQ(j.code, 0) << j.err;
  const auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed.at("points").size(), 39u);
  EXPECT_TRUE(parsed.at("ok").get<bool>());
}

TEST(CalibrateCommand, BadInputIsOneLineAndExitTwo) {
  ExpectUsage("--gemm 1,2", "--gemm");
  ExpectUsage("--gemm 1024,1024,1024 --gpu b300", "b200-sxm");  // lists the known GPUs
  ExpectUsage("--collective all_reduce --bytes 12Q", "--bytes");
  ExpectUsage("--collective all_reduce --bytes 1M --topology nowhere", "a100-sxm");  // lists the known topologies
  ExpectUsage("", "exactly one");
  ExpectUsage("--check --gemm 1,1,1", "exactly one");
  ExpectUsage("--gemm 1024,1024,1024 --gpu a100-sxm --dtype fp8_e4m3", "a100-sxm has no fp8_e4m3 tensor cores");
}

TEST(CalibrateCommand, HeldSmsPredictTheCliffAndBadCountsAreRefused) {
  const auto alone = Calibrate("--gemm 4096,1280,8192 --json");
  ASSERT_EQ(alone.code, 0) << alone.err;
  const auto held = Calibrate("--gemm 4096,1280,8192 --json --held-sms 4");
  ASSERT_EQ(held.code, 0) << held.err;
  const auto j = nlohmann::json::parse(held.out);
  EXPECT_GT(j["time_ns"].get<double>(), 1.7 * nlohmann::json::parse(alone.out)["time_ns"].get<double>());
  EXPECT_EQ(j["holder"], "spin");
  EXPECT_EQ(j["held_sms"], 4);
  const auto copy = Calibrate("--gemm 4096,1280,8192 --held-sms 4 --holder copy");
  ASSERT_EQ(copy.code, 0) << copy.err;
  EXPECT_THAT(copy.out, HasSubstr("beside 4 SMs held (copy)"));
  ExpectUsage("--gemm 4096,1280,8192 --held-sms 4 --holder nap", "--holder must be spin or copy, got 'nap'");
  ExpectUsage("--gemm 4096,1280,8192 --held-sms=-1", "--held-sms");
  ExpectUsage("--gemm 4096,1280,8192 --held-sms 132", "--held-sms must be between 0 and 131");
}

TEST(CalibrateCommand, CollectiveSweepPrintsAnNcclTestsTable) {
  const auto o = Calibrate("--collective all_reduce -b 8 -e 8G");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("busbw"));
  EXPECT_THAT(o.out, HasSubstr("algbw"));
  // 8 B … 8 GiB by ×2: 31 sizes, one row each, plus two header lines.
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 33);
  EXPECT_THAT(o.out, HasSubstr("8589934592"));
  const auto j = Calibrate("--collective all_reduce -b 8 -e 8G --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const auto rows = nlohmann::json::parse(j.out)["rows"];
  ASSERT_EQ(rows.size(), 31u);
  EXPECT_GT(rows.back()["busbw_gbps"].get<double>(), rows.front()["busbw_gbps"].get<double>());
  ExpectUsage("--collective all_reduce -b 8 -e 8G -f 1", "-f must be at least 2");
  ExpectUsage("--collective all_reduce -b 8 -e 4", "-b must not exceed -e");
  ExpectUsage("--collective all_reduce -b 8", "-e MAX");
  ExpectUsage("--collective all_reduce -b 8 -e 1G --bytes 1G", "--bytes SIZE or -b MIN");
}

TEST(CalibrateCommand, TpZeroIsRefused) {
  ExpectUsage("--collective all_reduce --bytes 1G --tp 0", "--tp must be at least 2, got 0");
  ExpectUsage("--collective all_reduce --bytes 1G --tp 1", "--tp must be at least 2");
}

// NVLink domains and rails: a bad topology file or a --tp beyond its GPUs is
// one line and exit 2, before any prediction.
TEST(CalibrateCommand, TopologyFilesAndTpBeyondThemAreRefused) {
  ExpectUsage("--collective all_reduce --bytes 1G --topology gb200-nvl72 --tp 80",
              "--tp 80 needs more GPUs than topology 'gb200-nvl72' has (72)");
  ExpectUsage("--collective all_reduce --bytes 1G --topology b200-sxm-4node-ib --tp 33", "has (32)");
  const std::string rack = testing_cli::TempPath("rack.toml");
  const std::string head = "name = \"rack\"\ngpu = \"b200-sxm\"\ngpus_per_node = 4\n";
  const std::string intra = "[intra]\nkind = \"nvswitch\"\nbandwidth_gbs = 900.0\nlatency_us = 1.9\nsource = \"t\"\n";
  const std::string inter = "[inter]\nkind = \"infiniband\"\nbandwidth_gbs = 50.0\nlatency_us = 6.0\nsource = \"t\"\n";
  for (auto [body, what] :
       {std::tuple<std::string, std::string>{"nodes = 18\nnvlink_domain_gpus = 70\n" + intra, "must be whole nodes"},
        {"nodes = 18\nnvlink_domain_gpus = 48\n" + intra, "must divide the file's 72 GPUs"},
        {"nodes = 0\n" + intra, "nodes must be an integer between 1"},
        {"nodes = 2\n" + intra + inter + "nics_per_node = 3\n", "must divide gpus_per_node (4)"},
        {"nodes = 2\n" + intra + inter + "nics_per_node = 8\n", "between 1 and 4"},
        {"nodes = 1\n" + intra.substr(0, intra.find("latency_us")), "missing field"},
        {"nodes = 2\n" + intra, "missing table [inter]"}}) {
    std::ofstream(rack) << head << body;
    ExpectUsage("--collective all_reduce --bytes 1G --topology " + rack, what);
  }
  std::remove(rack.c_str());
}

TEST(CalibrateCommand, CheckIncludesTheMeasuredBoard) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedMeasured);
  const auto o = Calibrate("--check --measured " + MeasuredDir());
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("held 4096x1280x8192 spin 4 SMs"));
  EXPECT_THAT(o.out, HasSubstr("gemm_bf16 mean |error|"));
  // A board the model does not fit fails the check with exit 1.
  GpuSpec single = *LoadGpu("h100-sxm");
  single.kernels.clear();
  TempDir d;
  d.Write("single.toml", GpuToml(single));
  const auto off = Calibrate("--check --measured " + MeasuredDir() + " --gpu " + d.Path("single.toml"));
  EXPECT_EQ(off.code, 1) << off.err;
  EXPECT_THAT(off.out, HasSubstr("OFF"));
}

// A folder's gemm_kernels.csv: cuBLASLt's choice beside the sim's, in text
// and in --json; a row no launch can have is refused (exit 2, one line).
TEST(CalibrateCommand, CheckSetsCublasKernelsBesideTheSimsChoice) {
  TempDir d;
  const std::string header =
      "m,n,k,dtype,kernel,grid_ctas,cluster_ctas,max_active_clusters,block_threads,registers,shared_bytes\n";
  d.Write("gemm_kernels.csv", header +
                                  "512,7168,8192,bf16,nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT,112,2,64,384,168,"
                                  "201728\n"
                                  "4096,1280,8192,bf16,nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT,128,2,64,384,168,"
                                  "201728\n");
  const auto o = Calibrate("--check --measured " + d.dir().string());
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("kernel choice beside cuBLASLt's (gemm_kernels.csv)"));
  EXPECT_THAT(o.out, HasSubstr("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT"));
  EXPECT_THAT(o.out, HasSubstr("kernel choice: tile as cuBLASLt's in"));
  const auto j = Calibrate("--check --json --measured " + d.dir().string());
  ASSERT_EQ(j.code, 0) << j.err;
  const auto rows = nlohmann::json::parse(j.out)["measured"]["kernel_choice"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["cublaslt"]["grid_ctas"], 112);
  EXPECT_EQ(rows[0]["cublaslt"]["resident_ctas"], 128);  // 64 clusters of 2
  EXPECT_EQ(rows[0]["cublaslt"]["tile"][1], 256);
  const sim::GemmCost c = sim::GemmCostOf(*LoadGpu("h100-sxm"), 512, 7168, 8192, DType::kBf16);
  EXPECT_EQ(rows[0]["sim"]["tile"][0], c.tile_m);
  EXPECT_EQ(rows[0]["grid_agrees"].get<bool>(), (c.stream_k ? c.grid_sms : c.tiles) == 112);
  d.Write("gemm_kernels.csv", header + "512,7168,8192,bf16,nvjet,112,32,64,384,168,201728\n");
  ExpectUsage("--check --measured " + d.dir().string(), "gemm_kernels.csv:2: cluster_ctas: 32 is not in [1, 16]");
}

TEST(CalibrateCommand, FitWritesAGpuFileOtherCommandsLoad) {
  TempDir d;
  GpuSpec truth = *LoadGpu("h100-sxm");
  truth.sm_copy_gbs = 70;
  std::string csv = "sms,gbs_read_plus_write\n";
  for (int s : {1, 4, 16, 64, 132})
    csv += std::to_string(s) + "," + std::to_string(sim::CopyBandwidthGbs(truth, s)) + "\n";
  d.Write("copy_kernel_bw.csv", csv);
  const std::string out = d.Path("mine.toml");
  const auto o = Calibrate("--fit " + d.dir().string() + " -o " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("sm_copy_gbs"));
  EXPECT_THAT(o.out, HasSubstr("before (h100-sxm)"));
  auto mine = LoadGpu(out);
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  EXPECT_NEAR(mine->sm_copy_gbs, 70, 70 * 0.05);
  EXPECT_THAT(mine->source, HasSubstr("calibrate --fit"));
  const auto g = Calibrate("--gemm 1024,1024,1024 --gpu " + out);
  EXPECT_EQ(g.code, 0) << g.err;
}

TEST(CalibrateCommand, FitOnBadInputWritesNothing) {
  TempDir d;
  const std::string fit = "--fit " + d.dir().string() + " -o " + d.Path("out.toml");
  ExpectUsage(fit, "has none of");
  d.Write("gemm_beside_held_sms.csv", "m,n,k,holder,held_sms,time_ms,alone_ms\n8192,8192,8192,spin,200,1.9,1.5\n");
  ExpectUsage(fit, "is not below");
  d.Write("gemm_beside_held_sms.csv", "m,n,k,holder,held_sms,time_ms\n8192,8192,8192,spin,2,1.9\n");
  ExpectUsage(fit, "missing column 'alone_ms'");
  d.Write("gemm_beside_held_sms.csv", "m,n,k,holder,held_sms,time_ms,alone_ms\n8192,8192,8192,spin,2,-1.9,1.5\n");
  ExpectUsage(fit, "must be positive");
  EXPECT_FALSE(fs::exists(d.Path("out.toml")));
  // An existing output stays as it was when the measurements are refused.
  d.Write("out.toml", "kept\n");
  d.Write("gemm_beside_held_sms.csv", "m,n,k,holder,held_sms,time_ms,alone_ms\n8192,8192,8192,spin,2,1.9,1.5,0\n");
  ExpectUsage(fit, "gemm_beside_held_sms.csv:2: 8 fields, but the header names 7 columns");
  d.Write("gemm_beside_held_sms.csv", "m,n,k,holder,held_sms,time_ms,alone_ms\n");
  ExpectUsage(fit, "a header but no rows");
  d.Write("gemm_beside_held_sms.csv",
          "m,n,k,holder,held_sms,time_ms,alone_ms\n126000000000,126000000000,126000000000,spin,2,0.04,0.04\n");
  ExpectUsage(fit, "(an impossible measurement)");
  d.Write("gemm_beside_held_sms.csv",
          "m,n,k,holder,held_sms,time_ms,alone_ms\n8192,8192,8192,spin,2,1.6,1.5\n8192,8192,8192,spin,2,4.6,1.5\n");
  ExpectUsage(fit, "(contradictory duplicates)");
  EXPECT_EQ(testing_files::FileBytes(d.Path("out.toml")), "kept\n");
  ExpectUsage("--fit " + d.dir().string(), "-o FILE.toml");
}

// gemm_fp8.csv alone: --fit sets efficiency_fp8 (tflops_fp8 is the file's
// published peak) so that the file predicts those FP8 GEMMs.
TEST(CalibrateCommand, FitSetsEfficiencyFp8FromGemmFp8Rows) {
  TempDir d;
  GpuSpec truth = *LoadGpu("h100-sxm");
  ASSERT_GT(std::abs(truth.efficiency_fp8 - 0.55), 0.1);
  truth.efficiency_fp8 = 0.55;
  std::string csv = "m,n,k,time_ms\n";
  for (auto [m, n, k] : {std::tuple{64, 8192, 1024}, {1024, 8192, 3584}, {4096, 4096, 4096}, {8192, 8192, 8192}}) {
    csv += std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k) + "," +
           std::to_string(sim::GemmTimeNs(truth, m, n, k, DType::kFp8E4m3) / 1e6) + "\n";
  }
  d.Write("gemm_fp8.csv", csv);
  const std::string out = d.Path("fp8.toml");
  const auto o = Calibrate("--fit " + d.dir().string() + " -o " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("efficiency_fp8"));
  EXPECT_THAT(o.out, HasSubstr("gemm_fp8 8192x8192x8192"));
  auto mine = LoadGpu(out);
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  EXPECT_NEAR(mine->efficiency_fp8, 0.55, 0.55 * 0.03);
  EXPECT_EQ(mine->tflops_fp8, truth.tflops_fp8);
}

TEST(CalibrateCommand, FitOnBadFp8RowsIsOneLineAndExitTwo) {
  TempDir d;
  const std::string fit = "--fit " + d.dir().string() + " -o " + d.Path("out.toml");
  d.Write("gemm_fp8.csv", "m,n,k,time_ms\n64,8192,1000,0.1\n");
  ExpectUsage(fit, "gemm_fp8.csv:2: k: 1000 is not a multiple of 16");
  d.Write("gemm_fp8.csv", "m,n,k,time_ms\n64,8192,1024,-0.1\n");
  ExpectUsage(fit, "must be positive");
  d.Write("gemm_fp8.csv", "m,n,k,tflops\n64,8192,1024,900\n");
  ExpectUsage(fit, "missing column 'time_ms'");
  EXPECT_FALSE(fs::exists(d.Path("out.toml")));
}

// fused_kernel.csv's engine column through --fit: an unknown engine, or
// two engines in one file, is one line and exit 2, and nothing is written.
TEST(CalibrateCommand, FitOnBadFusedEnginesIsOneLineAndExitTwo) {
  TempDir d;
  const std::string fit = "--fit " + d.dir().string() + " -o " + d.Path("out.toml");
  const std::string header = "m,n,k,comm_sms,gemm_ms,bytes,transfer_ms,engine\n";
  d.Write("fused_kernel.csv", header + "8192,8192,8192,8,4.0,117440512,1.0,cutlass\n");
  ExpectUsage(fit, "fused_kernel.csv:2: engine: 'cutlass' is not tasks or core");
  d.Write("fused_kernel.csv",
          header + "8192,8192,8192,8,4.0,117440512,1.0,tasks\n8192,8192,8192,16,4.0,117440512,0.6,core\n");
  ExpectUsage(fit, "fused_kernel.csv:3: engine: core where the rows before are tasks (one engine per file)");
  EXPECT_FALSE(fs::exists(d.Path("out.toml")));
}

class CalibrateMeasureCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("braid_calibrate_measure_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  size_t Entries() const { return size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }

  fs::path dir_;
};

TEST_F(CalibrateMeasureCommand, BadOutputPathsExitTwoInFlagWords) {
  ExpectUsage("--measure", "--measure needs --gpu-out FILE.toml");
  ExpectUsage("--measure --gpu-out " + Path("missing/fit.toml"), "--gpu-out: cannot write '");
  ExpectUsage("--measure --gpu-out " + Path("missing/fit.toml"), "does not exist");
  ExpectUsage("--measure --gpu-out " + dir_.string(), "is a directory");
  ExpectUsage("--measure --gpu-out -", "--gpu-out: give a file");
  std::ofstream(Path("plain")) << "x";
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --csv-dir " + Path("plain"),
              "--csv-dir '" + Path("plain") + "' is not a directory");
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --csv-dir " + Path("missing/csv"), "does not exist");
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --gpu no-such-gpu", "no-such-gpu");
  // Nothing was written: only the file this test made.
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(CalibrateMeasureCommand, MeasureGoesAlone) {
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --gemm 64,64,64", "--measure goes alone");
  EXPECT_EQ(Entries(), 0u);
}

// --fused-engine names the kernel --measure times; it means nothing without
// --measure, and an unknown engine is bad input before any device is opened.
TEST_F(CalibrateMeasureCommand, FusedEngineIsTasksOrCoreAndGoesWithMeasure) {
  ExpectUsage("--check --fused-engine core", "--fused-engine goes with --measure");
  ExpectUsage("--check --fused-engine tasks", "--fused-engine goes with --measure");
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --fused-engine cutlass", "--fused-engine");
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --fused-engine cutlass", "cutlass");
  ExpectUsage("--measure --gpu-out " + Path("fit.toml") + " --fused-engine ''", "unknown --fused-engine ''");
  // A known engine gets as far as the device (none here: exit 1).
  const auto o = Calibrate("--measure --gpu-out " + Path("fit.toml") + " --fused-engine core");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(CalibrateMeasureCommand, WithoutAGpuItExitsOneWithOneLineAndWritesNothing) {
  const auto o = Calibrate("--measure --gpu-out " + Path("fit.toml") + " --csv-dir " + Path("csv"));
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_THAT(o.err, ::testing::MatchesRegex("braid calibrate: .*(no usable CUDA device|no CUDA device|built without "
                                             "CUDA).*\n"));
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(Entries(), 0u);
  // Bad input wins over a missing GPU: exit 2.
  const auto bad = Calibrate("--measure --gpu-out " + Path("nowhere/fit.toml"));
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("does not exist"));
  EXPECT_EQ(Entries(), 0u);
}

// On a machine with a GPU (skipped without one): the quick grid measured,
// its progress lines, the errors per file and the JSON.
TEST_F(CalibrateMeasureCommand, OnAGpuPrintsErrorsPerFileAndPutsTheCsvsBesideTheFile) {
  const auto o = Braid("calibrate --measure --quick --gpu-out " + Path("board.toml"));
  if (o.code == 1 &&
      (o.err.find("no usable CUDA device") != std::string::npos || o.err.find("no CUDA device") != std::string::npos ||
       o.err.find("built without CUDA") != std::string::npos)) {
    GTEST_SKIP() << "no GPU: " << o.err;
  }
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, ::testing::ContainsRegex("measuring .* \\([0-9]+ SMs\\)"));
  EXPECT_THAT(o.out, HasSubstr("fused kernel (2 points): GEMM efficiency"));
  EXPECT_THAT(o.out, ::testing::ContainsRegex("fused_kernel.csv +4 "));
  EXPECT_THAT(o.out, ::testing::ContainsRegex("gemm_bf16.csv +6 "));
  EXPECT_THAT(o.out, ::testing::ContainsRegex("copy_kernel_bw.csv +4 "));
  // A pipe gets one line per stage with its count and time.
  EXPECT_THAT(o.err, ::testing::ContainsRegex("gemm_bf16.csv: 6/6 measured in [0-9.]+s\n"));
  EXPECT_THAT(o.err, ::testing::ContainsRegex("launch_gaps.csv: 4/4 measured in"));
  EXPECT_THAT(o.err, ::testing::ContainsRegex("fused_kernel.csv: 2/2 measured in"));
  std::vector<std::string> made;
  for (const auto& e : fs::directory_iterator(dir_)) made.push_back(e.path().filename().string());
  ASSERT_EQ(made.size(), 2u);
  std::sort(made.begin(), made.end());
  EXPECT_EQ(made[0].substr(0, 15), "board-measured-");
  EXPECT_EQ(made[0].size(), std::string("board-measured-XXXXXX").size());
  EXPECT_EQ(made[1], "board.toml");
  EXPECT_TRUE(fs::is_regular_file(dir_ / made[0] / "gemm_bf16.csv"));

  const auto j = Braid("calibrate --measure --quick --no-progress --json --gpu-out " + Path("fit.toml") +
                       " --csv-dir " + Path("csv"));
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(j.err, "");
  const auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed["csv_dir"], Path("csv"));
  EXPECT_EQ(parsed["gpu_out"], Path("fit.toml"));
  EXPECT_TRUE(parsed["fused"]["measured"].get<bool>());
  EXPECT_EQ(parsed["fused"]["points"].get<int>(), 2);
  ASSERT_EQ(parsed["files"].size(), 6u);
  EXPECT_EQ(parsed["files"][2]["file"], "copy_kernel_bw.csv");
  EXPECT_EQ(parsed["files"][4]["file"], "launch_gaps.csv");
  EXPECT_EQ(parsed["files"][5]["file"], "fused_kernel.csv");
  EXPECT_EQ(parsed["files"][5]["rows"].get<int>(), 4);
  EXPECT_TRUE(LoadGpu(Path("fit.toml")).ok());
  EXPECT_TRUE(fs::is_regular_file(Path("csv/fused_kernel.csv")));
}

}  // namespace
}  // namespace braid
