// End-to-end tests of `braid run`: the real binary, its exit codes, its
// one-line errors and its JSON contract.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;

const std::string kGood = "run --backend cpu --op gemm_rs --m 64 --n 32 --k 64 --tp 4 --iters 2 --warmup 1 --no-db ";

void ExpectUsageError(const std::string& args, const std::string& message) {
  SCOPED_TRACE(args);
  const Outcome o = Braid(args);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr(message));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
  EXPECT_THAT(o.err, StartsWith("braid"));
  EXPECT_EQ(o.out, "") << "nothing written on bad input";
}

TEST(CliRun, JsonFollowsTheContractAndVerifies) {
  const Outcome o = Braid(kGood + "--algo ring --chunks 2 --verify --json --dtype fp32");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["run"].is_null());
  EXPECT_EQ(j["workload"]["op"], "gemm_rs");
  EXPECT_EQ(j["workload"]["m"], 64);
  EXPECT_EQ(j["workload"]["tp"], 4);
  EXPECT_EQ(j["config"]["algorithm"], "ring");
  EXPECT_EQ(j["config"]["chunks"], 2);
  EXPECT_EQ(j["config"]["comm_priority"], "high");
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_TRUE(j["topology"].is_null()) << "the cpu backend uses no GPU topology";
  for (const char* m :
       {"makespan_ns", "compute_ns", "comm_ns", "overlap_ns", "exposed_comm_ns", "tail_ns", "overlap_ratio"}) {
    ASSERT_TRUE(j["metrics"].contains(m)) << m;
    EXPECT_GE(j["metrics"][m]["p99"].get<double>(), j["metrics"][m]["p50"].get<double>()) << m;
  }
  EXPECT_GT(j["metrics"]["makespan_ns"]["p50"].get<double>(), 0);
  EXPECT_GT(j["metrics"]["comm_ns"]["p50"].get<double>(), 0);
  ASSERT_EQ(j["ranks"].size(), 4u);
  EXPECT_EQ(j["ranks"][3]["rank"], 3);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-4);
}

TEST(CliRun, CommPriorityReachesThePlan) {
  // A tuned preset may say comm_priority = "normal": run must reproduce it.
  const std::string sim =
      "run --no-db --json --op gemm_rs --m 8192 --n 8192 --k 8192 --tp 8 --algo chunked --chunks 4 ";
  const Outcome high = Braid(sim);
  const Outcome normal = Braid(sim + "--comm-priority normal");
  ASSERT_EQ(high.code, 0) << high.err;
  ASSERT_EQ(normal.code, 0) << normal.err;
  EXPECT_EQ(nlohmann::json::parse(normal.out)["config"]["comm_priority"], "normal");
  EXPECT_NE(nlohmann::json::parse(high.out)["metrics"]["makespan_ns"]["p50"],
            nlohmann::json::parse(normal.out)["metrics"]["makespan_ns"]["p50"])
      << "sim gives a comm kernel on a higher-priority stream its SMs at once";
}

TEST(CliRun, HumanTableShowsMetricsAndBf16Note) {
  const Outcome o = Braid(kGood + "--algo chunked --chunks 2 --verify");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("makespan"));
  EXPECT_THAT(o.out, HasSubstr("exposed_comm"));
  EXPECT_THAT(o.out, HasSubstr("bf16 requested"));
  EXPECT_THAT(o.out, HasSubstr("verify    ok"));
}

TEST(CliRun, SizesAcceptBinarySuffixes) {
  const Outcome o =
      Braid("run --op gemm_ar --m 1K --n 1k --k 1K --tp 2 --algo serial --iters 1 --warmup 0 --json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["workload"]["m"], 1024);
  EXPECT_EQ(j["workload"]["n"], 1024);
}

TEST(CliRun, BadInputIsOneLineAndExitTwo) {
  ExpectUsageError(kGood + "--algo zigzag", "unknown algorithm 'zigzag'");
  ExpectUsageError("run --no-db --op gemm_zz --m 64 --n 32 --k 64 --tp 4 --algo ring", "unknown op 'gemm_zz'");
  ExpectUsageError("run --no-db --op gemm_rs --m 0 --n 32 --k 64 --tp 4 --algo ring", "--m '0': must be positive");
  ExpectUsageError("run --no-db --op gemm_rs --m -64 --n 32 --k 64 --tp 4 --algo ring", "--m '-64'");
  ExpectUsageError("run --no-db --op gemm_rs --m 64x --n 32 --k 64 --tp 4 --algo ring", "--m '64x': not a size");
  ExpectUsageError("run --no-db --op gemm_rs --m 64 --n 32 --k 64 --tp 0 --algo ring", "--tp must be at least 1");
  ExpectUsageError("run --no-db --op gemm_rs --m 66 --n 32 --k 64 --tp 4 --algo ring", "M=66 is not divisible");
  ExpectUsageError(kGood + "--algo chunked --chunks 3", "does not divide the rows per rank block (M/P) (16)");
  ExpectUsageError(kGood + "--algo ring --chunks 17", "chunks=17 exceeds the rows per rank block (M/P) (16)");
  ExpectUsageError(kGood + "--algo serial --chunks 2", "serial runs the collective whole");
  ExpectUsageError(kGood + "--algo chunked --chunks 2 --splits 1,x", "--splits '1,x'");
  ExpectUsageError(kGood + "--algo ring --streams 0", "--streams must be between 1 and 8");
  ExpectUsageError(kGood + "--algo ring --iters 0", "--iters must be at least 1");
  ExpectUsageError(kGood + "--algo ring --bogus 1", "--bogus");
  ExpectUsageError(kGood + "--algo ring --dtype fp8", "dtype 'fp8' is ambiguous: say fp8_e4m3");
  ExpectUsageError(kGood + "--algo ring --dtype fp9", "unknown dtype 'fp9'");
  ExpectUsageError(
      "run --no-db --op ag_gemm --m 64 --n 64 --k 64 --tp 2 --algo ring --topology a100-sxm "
      "--dtype fp8_e4m3",
      "a100-sxm has no fp8_e4m3 tensor cores");
  ExpectUsageError(kGood + "--algo fused --dtype fp8_e5m2", "fused has no fp8_e5m2 kernel");
  ExpectUsageError(kGood + "--algo ring --backend tpu", "unknown backend 'tpu'");
  ExpectUsageError(kGood + "--algo ring --backend sim --verify", "--verify needs real data");
  ExpectUsageError(kGood + "--algo ring --backend sim --topology h900", "unknown topology 'h900'");
  ExpectUsageError(kGood + "--algo ring --tp 16 --m 256 --k 256", "--tp 16 needs more GPUs than topology");
  ExpectUsageError("run --no-db --op gemm_rs --m 64 --n 32 --k 64 --tp 4", "--algo is required");
  ExpectUsageError(kGood + "--algo ring --comm-priority urgent", "--comm-priority 'urgent': use high or normal");
  ExpectUsageError("bisect --model llama3-8b", "unknown command 'bisect'");
}

TEST(CliRun, TopologyFilesAreCheckedBeforeRunning) {
  ExpectUsageError(kGood + "--algo ring --topology h900-sxm", "unknown topology 'h900-sxm'");
  ExpectUsageError(kGood + "--algo ring --topology /no/such/file.toml", "cannot open topology file");
  const std::string bad = TempPath("bad_topology.toml");
  std::ofstream(bad) << "name = \"x\"\ngpu = \"y\"\ngpus_per_node = \"eight\"\nnodes = 1\n";
  ExpectUsageError(kGood + "--algo ring --topology " + bad, "gpus_per_node must be an integer");
  // Rails that do not divide the node's GPUs, and a tray size that does not
  // divide the NVLink domain.
  std::ofstream(bad) << "name = \"x\"\ngpu = \"h100-sxm\"\ngpus_per_node = 8\nnodes = 2\n"
                     << "[intra]\nkind = \"nvswitch\"\nbandwidth_gbs = 450.0\nlatency_us = 1.9\nsource = \"t\"\n"
                     << "[inter]\nkind = \"infiniband\"\nbandwidth_gbs = 50.0\nlatency_us = 6.0\nsource = \"t\"\n"
                     << "nics_per_node = 6\n";
  ExpectUsageError(kGood + "--algo ring --topology " + bad, "inter.nics_per_node 6 must divide gpus_per_node (8)");
  std::ofstream(bad) << "name = \"x\"\ngpu = \"h100-sxm\"\ngpus_per_node = 8\nnodes = 9\nnvlink_domain_gpus = 36\n"
                     << "[intra]\nkind = \"nvswitch\"\nbandwidth_gbs = 450.0\nlatency_us = 1.9\nsource = \"t\"\n";
  ExpectUsageError(kGood + "--algo ring --topology " + bad, "nvlink_domain_gpus 36 must be whole nodes");
  ExpectUsageError("run --no-db --op gemm_rs --m 64 --n 32 --k 64 --tp 80 --algo ring --topology gb200-nvl72",
                   "--tp 80 needs more GPUs than topology 'gb200-nvl72' has (72)");
}

TEST(CliRun, SimIsTheDefaultBackendAndModelsTheTopology) {
  const std::string args =
      "run --no-db --json --op gemm_rs --m 8K --n 8K --k 8K --tp 8 --algo ring --chunks 4 --streams 2 ";
  const Outcome h100 = Braid(args + "--topology h100-sxm");
  ASSERT_EQ(h100.code, 0) << h100.err;
  const auto j = nlohmann::json::parse(h100.out);
  EXPECT_EQ(j["backend"], "sim");
  EXPECT_TRUE(j["verify"].is_null());
  ASSERT_EQ(j["ranks"].size(), 8u);
  const double t_h100 = j["metrics"]["makespan_ns"]["p50"];
  EXPECT_GT(t_h100, 100e3);  // 137 GFLOP per rank cannot beat ~170 µs at H100 speed
  EXPECT_LT(t_h100, 5e6);
  // docs/design.md's lower bound and efficiency are reported.
  const double lb = j["metrics"]["lower_bound_ns"]["p50"];
  EXPECT_GT(lb, 100e3);
  EXPECT_LE(lb, t_h100 * 1.1);
  EXPECT_NEAR(j["metrics"]["efficiency"]["p50"].get<double>(), lb / t_h100, 1e-9);
  EXPECT_DOUBLE_EQ(lb, std::max(j["lower_bound"]["compute_alone_ns"].get<double>(),
                                j["lower_bound"]["comm_alone_ns"].get<double>()));
  // The gap to the bound: the bound side's stretch and idle time add up to it.
  const auto& gap = j["gap"];
  ASSERT_TRUE(gap.is_object()) << j.dump();
  EXPECT_EQ(gap["bound"],
            j["lower_bound"]["comm_alone_ns"] > j["lower_bound"]["compute_alone_ns"] ? "comm" : "compute");
  EXPECT_DOUBLE_EQ(gap["makespan_ns"].get<double>(), t_h100);
  EXPECT_DOUBLE_EQ(gap["lower_bound_ns"].get<double>(), lb);
  EXPECT_NEAR(gap["stretched_ns"].get<double>() + gap["idle_ns"].get<double>(), t_h100 - lb, 1e-6);
  EXPECT_NEAR(gap["gap_ns"].get<double>(), t_h100 - lb, 1e-6);
  EXPECT_NEAR(gap["compute_slowdown"].get<double>(),
              j["metrics"]["compute_ns"]["p50"].get<double>() / j["lower_bound"]["compute_alone_ns"].get<double>(),
              1e-9);
  EXPECT_GE(gap["compute_slowdown"].get<double>(), 1.0) << "the sim never runs a GEMM faster beside comm";
  // Deterministic: p50 == p99, and a second run gives the same figures.
  EXPECT_EQ(j["metrics"]["makespan_ns"]["p50"], j["metrics"]["makespan_ns"]["p99"]);
  EXPECT_EQ(nlohmann::json::parse(Braid(args + "--topology h100-sxm").out)["metrics"], j["metrics"]);
  // The same plan on A100s is slower.
  const Outcome a100 = Braid(args + "--topology a100-sxm");
  ASSERT_EQ(a100.code, 0) << a100.err;
  EXPECT_GT(nlohmann::json::parse(a100.out)["metrics"]["makespan_ns"]["p50"].get<double>(), 1.5 * t_h100);
}

TEST(CliCalibrate, CheckPassesAndPredictionsFollowTheContract) {
  const Outcome check = Braid("calibrate --check");
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("error %"));
  const Outcome gemm = Braid("calibrate --gemm 8192,8192,8192 --dtype bf16 --gpu h100-sxm --json");
  ASSERT_EQ(gemm.code, 0) << gemm.err;
  const auto g = nlohmann::json::parse(gemm.out);
  EXPECT_NEAR(g["tflops"].get<double>(), 797.5, 797.5 * 0.1);
  const Outcome coll = Braid("calibrate --collective all_gather --bytes 1G --topology h100-sxm --json");
  ASSERT_EQ(coll.code, 0) << coll.err;
  const auto c = nlohmann::json::parse(coll.out);
  EXPECT_NEAR(c["busbw_gbps"].get<double>(), 370, 37);
  EXPECT_GT(c["algbw_gbps"].get<double>(), c["busbw_gbps"].get<double>());
  ExpectUsageError("calibrate --gemm 8192,8192 --gpu h100-sxm", "--gemm");
  ExpectUsageError("calibrate --gemm 1,1,1 --gpu b300", "unknown GPU 'b300'");
}

TEST(CliRun, CudaBackendSaysWhyItCannotRun) {
  const Outcome o = Braid(kGood + "--algo ring --backend cuda");
  // No GPU here: exit 1 naming the CUDA failure; a GPU build says not implemented (2).
  EXPECT_TRUE(o.code == 1 || o.code == 2) << o.code;
  EXPECT_THAT(o.err, HasSubstr("cuda"));
  EXPECT_EQ(o.out, "");
}

// A tiny model file for layer runs on the cpu backend.
std::string TinyModelFile() {
  std::string path = TempPath("tiny_model.toml");
  std::ofstream out(path);
  out << "name = \"tiny\"\nhidden = 32\nheads = 4\nkv_heads = 2\nhead_dim = 8\nffn = 64\n"
         "gated_mlp = true\nlayers = 2\nsource = \"a test\"\n";
  return path;
}

TEST(CliRun, LayerWorkloadOnSimReportsTheModel) {
  const Outcome o = Braid(
      "run --no-db --json --model llama3-70b --seq 4K --batch 1 --tp 8 --algo ring --chunks 2 "
      "--streams 2 --iters 1 --warmup 0");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["workload"]["model"], "llama3-70b");
  EXPECT_EQ(j["workload"]["seq"], 4096);
  EXPECT_EQ(j["workload"]["batch"], 1);
  EXPECT_EQ(j["workload"]["phase"], "prefill");
  EXPECT_EQ(j["workload"]["sequence_parallel"], true);
  EXPECT_EQ(j["workload"]["op"], "ag_gemm");  // the first GEMM op (qkv)
  ASSERT_EQ(j["workload"]["ops"].size(), 5u);
  EXPECT_EQ(j["workload"]["ops"][1]["kind"], "attention");
  EXPECT_EQ(j["workload"]["ops"][2]["kind"], "gemm_rs");
  EXPECT_GT(j["metrics"]["makespan_ns"]["p50"].get<double>(), 0);
}

TEST(CliRun, LayerWorkloadOnCpuVerifiesEveryOpAndIsStored) {
  const std::string model = TinyModelFile();
  const std::string db = TempPath("layer_runs.db");
  std::remove(db.c_str());
  const Outcome o = Braid("run --backend cpu --db " + db + " --json --model " + model +
                          " --seq 16 --batch 2 --tp 2 --algo chunked --chunks 2 --verify --iters 1 --warmup 0");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_EQ(j["workload"]["model"], "tiny");
  const Outcome stored = Braid("report --db " + db + " --run " + std::to_string(j["run"].get<long long>()) + " --json");
  ASSERT_EQ(stored.code, 0) << stored.err;
  const auto s = nlohmann::json::parse(stored.out);
  EXPECT_EQ(s["workload"]["model"], "tiny");
  EXPECT_EQ(s["workload"]["seq"], 16);
  EXPECT_EQ(s["workload"]["phase"], "prefill");
  const Outcome iso = Braid("run --backend cpu --no-db --model " + model +
                            " --seq 16 --batch 2 --tp 2 --algo iso --chunks 3 --splits 1,2,1 "
                            "--sequence-parallel off --verify --iters 1 --warmup 0");
  EXPECT_EQ(iso.code, 0) << iso.err;
  const Outcome decode = Braid("run --backend cpu --no-db --model " + model +
                               " --seq 16 --batch 3 --phase decode --tp 2 --algo serial --verify --iters 1 --warmup 0");
  EXPECT_EQ(decode.code, 0) << decode.err;
  std::remove(model.c_str());
  std::remove(db.c_str());
}

TEST(CliRun, TrainPhaseRunsTheBackwardOnSimAndNamesEachGemmsPassAndMethod) {
  const std::string base = "run --no-db --json --model llama3-70b --seq 8K --tp 8 --phase train --iters 1 --warmup 0 ";
  const Outcome ring = Braid(base + "--algo ring");
  ASSERT_EQ(ring.code, 0) << ring.err;
  const auto j = nlohmann::json::parse(ring.out);
  EXPECT_EQ(j["workload"]["phase"], "train");
  const auto& ops = j["workload"]["ops"];
  ASSERT_EQ(ops.size(), 14u);
  EXPECT_EQ(ops[0]["name"], "qkv.fprop");
  EXPECT_EQ(ops[5]["name"], "fc2.dgrad");
  EXPECT_EQ(ops[5]["pass"], "dgrad");
  EXPECT_EQ(ops[5]["kind"], "ag_gemm");
  EXPECT_EQ(ops[6]["pass"], "wgrad");
  EXPECT_EQ(ops[6]["method"], "external");  // fed by fc2.dgrad's ring
  EXPECT_EQ(ops[11]["name"], "attention.backward");
  EXPECT_EQ(ops[12]["method"], "ring");
  EXPECT_EQ(ops[13]["method"], "serial");  // a ring dgrad drops TE's bulk wgrad
  // TE's default backward for qkv and fc1 (bulk) hides comm that serial leaves exposed.
  const Outcome serial = Braid(base + "--algo serial");
  const Outcome bulk = Braid(base + "--algo bulk");
  ASSERT_EQ(serial.code, 0) << serial.err;
  ASSERT_EQ(bulk.code, 0) << bulk.err;
  const auto js = nlohmann::json::parse(serial.out), jb = nlohmann::json::parse(bulk.out);
  EXPECT_EQ(jb["workload"]["ops"][7]["method"], "bulk");
  EXPECT_EQ(jb["workload"]["ops"][8]["method"], "bulk");
  EXPECT_EQ(js["metrics"]["overlap_ns"]["p50"].get<double>(), 0);
  EXPECT_GT(jb["metrics"]["overlap_ns"]["p50"].get<double>(), 0);
  EXPECT_LT(jb["metrics"]["makespan_ns"]["p50"].get<double>(), js["metrics"]["makespan_ns"]["p50"].get<double>());
}

TEST(CliRun, TrainPhaseOnCpuVerifiesEveryGemmOfForwardAndBackward) {
  const std::string model = TinyModelFile();  // hidden 32, heads 4, kv 2, ffn 64
  for (const char* algo : {"serial", "chunked --chunks 2", "ring", "bidir_ring", "bulk"}) {
    const Outcome o = Braid("run --backend cpu --no-db --json --model " + model +
                            " --seq 8 --batch 2 --tp 2 --phase train --verify --iters 1 --warmup 0 --algo " + algo);
    ASSERT_EQ(o.code, 0) << algo << ": " << o.err;
    const auto j = nlohmann::json::parse(o.out);
    EXPECT_TRUE(j["verify"]["ok"].get<bool>()) << algo;
    EXPECT_EQ(j["workload"]["ops"].size(), 14u) << algo;
  }
  std::remove(model.c_str());
}

TEST(CliRun, IsoOnSimOverlapsTheAllReduces) {
  const std::string base =
      "run --no-db --json --model llama3-70b --seq 4K --tp 8 --iters 1 --warmup 0 "
      "--sequence-parallel off ";
  const Outcome serial = Braid(base + "--algo serial");
  const Outcome iso = Braid(base + "--algo iso --chunks 2");
  ASSERT_EQ(serial.code, 0) << serial.err;
  ASSERT_EQ(iso.code, 0) << iso.err;
  const auto js = nlohmann::json::parse(serial.out), ji = nlohmann::json::parse(iso.out);
  EXPECT_EQ(ji["config"]["algorithm"], "iso");
  EXPECT_GT(ji["metrics"]["overlap_ns"]["p50"].get<double>(), 0);
  EXPECT_LT(ji["metrics"]["makespan_ns"]["p50"].get<double>(), js["metrics"]["makespan_ns"]["p50"].get<double>());
}

TEST(CliRun, FusedRunsOnSimForOpsAndModels) {
  const Outcome op = Braid(
      "run --no-db --json --op ag_gemm --m 4096 --n 8192 --k 8192 --tp 8 --algo fused "
      "--comm-sms 16 --iters 1 --warmup 0");
  ASSERT_EQ(op.code, 0) << op.err;
  const auto jo = nlohmann::json::parse(op.out);
  EXPECT_EQ(jo["config"]["algorithm"], "fused");
  EXPECT_EQ(jo["config"]["comm_sms"], 16);
  EXPECT_GT(jo["metrics"]["overlap_ratio"]["p50"].get<double>(), 0);
  const Outcome layer = Braid(
      "run --no-db --json --model llama3-70b --seq 4K --tp 8 --algo fused --comm-sms 8 "
      "--iters 1 --warmup 0");
  ASSERT_EQ(layer.code, 0) << layer.err;
  EXPECT_GT(nlohmann::json::parse(layer.out)["metrics"]["overlap_ns"]["p50"].get<double>(), 0);
  ExpectUsageError("run --no-db --op gemm_ar --m 64 --n 64 --k 64 --tp 2 --algo fused",
                   "fused does not apply to gemm_ar");
  ExpectUsageError("run --no-db --op ag_gemm --m 64 --n 64 --k 64 --tp 2 --algo fused --chunks 2", "takes no --chunks");
}

TEST(CliRun, DirectRunsOnSimAndRefusesWhatItCannotPlanWithExitTwo) {
  const Outcome rs = Braid(
      "run --no-db --json --op gemm_rs --m 4096 --n 8192 --k 8192 --tp 8 --algo direct --streams 2 "
      "--iters 1 --warmup 0");
  ASSERT_EQ(rs.code, 0) << rs.err;
  const auto j = nlohmann::json::parse(rs.out);
  EXPECT_EQ(j["config"]["algorithm"], "direct");
  EXPECT_GT(j["metrics"]["overlap_ns"]["p50"].get<double>(), 0);
  ExpectUsageError("run --no-db --op gemm_ar --m 64 --n 64 --k 64 --tp 2 --algo direct",
                   "direct does not apply to gemm_ar");
  ExpectUsageError("run --no-db --model llama3-8b --seq 1024 --tp 8 --phase decode --algo direct",
                   "direct does not apply to gemm_ar");
  ExpectUsageError(
      "run --no-db --op gemm_rs --m 64 --n 64 --k 64 --tp 2 --algo direct --dtype fp8_e4m3 --comm-dtype fp8_e4m3",
      "direct reduces in the wire dtype");
}

TEST(CliRun, FusedOnCpuIsRefusedWithExitTwo) {
  const Outcome o = Braid(
      "run --backend cpu --no-db --op ag_gemm --m 16 --n 8 --k 8 --tp 2 --algo fused "
      "--iters 1 --warmup 0");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("fused runs on the sim backend; the cpu backend has no fused kernel"), std::string::npos)
      << o.err;
}

TEST(CliRun, LayerWorkloadUsageErrors) {
  ExpectUsageError("run --no-db --model llama9 --seq 128 --tp 8 --algo serial", "unknown model 'llama9'");
  ExpectUsageError("run --no-db --model llama9 --seq 128 --tp 8 --algo serial", "llama3-70b");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --op gemm_rs --tp 8 --algo serial", "not both");
  ExpectUsageError("run --no-db --tp 8 --algo serial", "give a workload");
  ExpectUsageError("run --no-db --op gemm_rs --m 64 --n 64 --tp 8 --algo serial", "--k is required");
  ExpectUsageError("run --no-db --op gemm_rs --m 64 --n 64 --k 64 --seq 4 --tp 2 --algo serial", "--model only");
  ExpectUsageError("run --no-db --model llama3-70b --tp 8 --algo serial", "--model needs --seq");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --tp 3 --algo serial", "heads=64 is not divisible by P=3");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --tp 8 --algo iso --chunks 2", "--sequence-parallel off");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --tp 8 --phase backward --algo serial", "unknown phase");
  ExpectUsageError(
      "run --no-db --model llama3-70b --seq 128 --tp 8 --phase train --sequence-parallel off --algo serial",
      "need sequence parallelism (--sequence-parallel on)");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --tp 8 --phase train --algo external",
                   "external is chosen by its dgrad: with --algo ring");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --tp 8 --phase train --algo bulk --chunks 2",
                   "bulk overlaps whole collectives: it takes no --chunks");
  ExpectUsageError("run --no-db --model llama3-70b --seq 128 --tp 8 --algo bulk", "applies to training layers");
  ExpectUsageError("run --no-db --op gemm_rs --m 64 --n 64 --k 64 --tp 2 --algo bulk", "bulk is a backward method");
  ExpectUsageError("run --no-db --op gemm_ar --m 64 --n 64 --k 64 --tp 2 --algo iso", "layer workloads only");
}

TEST(CliRun, SimLoopbackPredictsAllRanksOnOneGpu) {
  const std::string run =
      "run --backend sim --topology h200-sxm --op gemm_rs --m 8192 --n 8192 --k 8192 --tp 4 "
      "--algo ring --no-db --json ";
  const Outcome apart = Braid(run);
  const Outcome one = Braid(run + "--loopback");
  ASSERT_EQ(apart.code, 0) << apart.err;
  ASSERT_EQ(one.code, 0) << one.err;
  const auto a = nlohmann::json::parse(apart.out), l = nlohmann::json::parse(one.out);
  EXPECT_THAT(l["notes"].dump(), HasSubstr("loopback: all 4 ranks on one h200-sxm"));
  EXPECT_THAT(a["notes"].dump(), Not(HasSubstr("loopback")));
  // Four ranks' GEMMs on one GPU's SMs: well over twice the spread run.
  EXPECT_GT(l["metrics"]["makespan_ns"]["p50"].get<double>(), 2.0 * a["metrics"]["makespan_ns"]["p50"].get<double>());
}

TEST(CliRun, SimLoopbackOfMoreRanksThanOneGpuHoldsIsOneLineAndWritesNothing) {
  // A custom topology big enough for 150 ranks, of GPUs with 132 SMs.
  const std::string topo = TempPath("loopback_wide.toml");
  {
    std::ofstream f(topo);
    f << "name = \"wide\"\ngpu = \"h100-sxm\"\ngpus_per_node = 200\nnodes = 1\n"
         "[intra]\nkind = \"nvswitch\"\nbandwidth_gbs = 450.0\nlatency_us = 2.0\nsource = \"test\"\n";
  }
  const std::string db = TempPath("loopback_wide.db");
  const Outcome o = Braid("run --backend sim --loopback --topology " + topo +
                          " --op ag_gemm --m 1200 --n 9600 --k 64 --tp 150 --algo serial --db " + db);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("150 ranks cannot share one h100-sxm (132 SMs"));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(CliRun, SimLoopbackTunesPresetsKeyedApartFromTheTopologysOwn) {
  const std::string db = TempPath("loopback_tune.db"), out = TempPath("loopback_tune.toml");
  const std::string tune =
      "tune --backend sim --topology h200-sxm --op ag_gemm --m 2048 --n 2048 --k 2048 --tp 4 "
      "--no-progress --db " +
      db + " --out " + out;
  const Outcome real = Braid(tune);
  ASSERT_EQ(real.code, 0) << real.err;
  const Outcome loop = Braid(tune + " --loopback");
  ASSERT_EQ(loop.code, 0) << loop.err;
  // Both stay: the loopback winner does not replace the 4-GPU one.
  const Outcome show = Braid("presets show --json " + out);
  ASSERT_EQ(show.code, 0) << show.err;
  const auto j = nlohmann::json::parse(show.out);
  ASSERT_EQ(j["presets"].size(), 2u);
  std::vector<std::string> topologies;
  for (const auto& p : j["presets"]) topologies.push_back(p["key"]["topology"].get<std::string>());
  std::sort(topologies.begin(), topologies.end());
  EXPECT_EQ(topologies, (std::vector<std::string>{"h200-sxm", "h200-sxm-loopback"}));
}

// A sim run carries its makespan's expected error (docs/simulator.md, "Error
// bands") in --json, in the text report and in the store; a cpu run, which
// measures, carries none.
// A topology file whose [error_band] says an error outside 0..1: one line
// naming file, line and field, exit 2, no store written.
TEST(CliRun, AnErrorBandOutsideZeroToOneIsOneLineAndWritesNothing) {
  const std::string topo = TempPath("bad_band.toml"), db = TempPath("bad_band.db");
  std::filesystem::remove(db);
  {
    std::ofstream f(topo);
    f << "name = \"t\"\ngpu = \"h100-sxm\"\ngpus_per_node = 8\nnodes = 1\n[intra]\nkind = \"nvswitch\"\n"
         "bandwidth_gbs = 450.0\nlatency_us = 2.0\nsource = \"test\"\n[error_band]\ncollective = 1.5\n"
         "source = \"rows\"\n";
  }
  const Outcome o =
      Braid("run --topology " + topo +
            " --op ag_gemm --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --iters 1 --warmup 0 --db " + db);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("bad_band.toml:11:"));
  EXPECT_THAT(o.err, HasSubstr("error_band.collective must be a number from 0 to 1"));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

// NVLS figures a topology cannot have (channels on a PCIe link, a zero NVLS
// rate): one line naming file, line and field, exit 2, no store written.
TEST(CliRun, ImpossibleNvlsFiguresAreOneLineAndWriteNothing) {
  const std::string head = "name = \"t\"\ngpu = \"h100-sxm\"\ngpus_per_node = 8\nnodes = 1\n[intra]\n";
  const std::pair<std::string, std::string> cases[] = {
      {"kind = \"pcie\"\nbandwidth_gbs = 64.0\nlatency_us = 2.0\nnvls_channels = 16\n",
       ":9:17: intra.nvls_channels: NVLS (NVSwitch multimem) needs kind = \"nvswitch\""},
      {"kind = \"nvswitch\"\nbandwidth_gbs = 450.0\nlatency_us = 2.0\nnvls_efficiency = 0.0\n",
       ":9:19: intra.nvls_efficiency must be a number from 0.01 to 1"},
  };
  for (const auto& [link, message] : cases) {
    const std::string topo = TempPath("bad_nvls.toml"), db = TempPath("bad_nvls.db");
    std::filesystem::remove(db);
    {
      std::ofstream f(topo);
      f << head << link << "source = \"test\"\n";
    }
    const Outcome o =
        Braid("run --topology " + topo +
              " --op ag_gemm --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --iters 1 --warmup 0 --db " + db);
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_THAT(o.err, HasSubstr("bad_nvls.toml" + message));
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(std::filesystem::exists(db));
  }
}

TEST(CliRun, SimRunsCarryAnErrorBandAndMeasuredRunsNone) {
  const std::string db = TempPath("error_band.db");
  const std::string run = "run --op ag_gemm --m 8192 --n 8192 --k 8192 --tp 8 --algo ring --iters 1 --warmup 0";
  const Outcome sim = Braid(run + " --json --db " + db);
  ASSERT_EQ(sim.code, 0) << sim.err;
  const auto j = nlohmann::json::parse(sim.out);
  ASSERT_TRUE(j.contains("error_band")) << sim.out;
  // h100-sxm: GEMMs at 17 %, collectives at 5 %: the run lies between.
  EXPECT_GT(j["error_band"].get<double>(), 0.05);
  EXPECT_LE(j["error_band"].get<double>(), 0.17);
  EXPECT_FALSE(j["error_band_assumed"].get<bool>());
  const Outcome report = Braid("report --run " + std::to_string(j["run"].get<int64_t>()) + " --json --db " + db);
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(report.out)["error_band"].get<double>(), j["error_band"].get<double>());
  const Outcome text = Braid(run + " --no-db");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("error_band     ±"));
  EXPECT_THAT(text.out, HasSubstr("(from measured rows)"));
  // rtx4090-pcie's files give no band: said to be assumed.
  const Outcome assumed = Braid(
      "run --topology rtx4090-pcie --op ag_gemm --m 4096 --n 4096 --k 4096 --tp 2 --algo ring --iters 1 --warmup 0 "
      "--no-db "
      "--json");
  ASSERT_EQ(assumed.code, 0) << assumed.err;
  EXPECT_TRUE(nlohmann::json::parse(assumed.out)["error_band_assumed"].get<bool>());
  const Outcome cpu = Braid(
      "run --backend cpu --op ag_gemm --m 64 --n 64 --k 64 --tp 2 --algo ring --iters 1 --warmup 0 --no-db --json");
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  EXPECT_FALSE(nlohmann::json::parse(cpu.out).contains("error_band"));
}

// The H200's loopback runs (presets/measured/h200, cuda backend) against the
// sim's loopback prediction of each: the model's error, held where it is.
TEST(CliRun, SimLoopbackPredictsTheMeasuredH200LoopbackRuns) {
  const std::filesystem::path dir = std::filesystem::path(BRAID_SOURCE_DIR) / "presets/measured/h200/loopback";
  double sum_err = 0, sum_err_apart = 0, band = 0;
  std::vector<double> errors;
  int rows = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(entry.path());
    const auto m = nlohmann::json::parse(f);
    const auto& w = m["workload"];
    const auto& c = m["config"];
    if (c["algorithm"] == "fused") continue;  // its kernel ran at 0.5 % of cuBLASLt's rate: not a model question
    SCOPED_TRACE(entry.path().filename().string());
    const std::string run = "run --backend sim --topology h200-sxm --no-db --json --iters 1 --warmup 0 --op " +
                            w["op"].get<std::string>() + " --m " + std::to_string(w["m"].get<int64_t>()) + " --n " +
                            std::to_string(w["n"].get<int64_t>()) + " --k " + std::to_string(w["k"].get<int64_t>()) +
                            " --tp " + std::to_string(w["tp"].get<int>()) + " --algo " +
                            c["algorithm"].get<std::string>() + " --chunks " + std::to_string(c["chunks"].get<int>()) +
                            " --streams " + std::to_string(c["streams"].get<int>());
    const Outcome one = Braid(run + " --loopback"), apart = Braid(run);
    ASSERT_EQ(one.code, 0) << one.err;
    ASSERT_EQ(apart.code, 0) << apart.err;
    const double measured = m["metrics"]["makespan_ns"]["p50"].get<double>();
    const auto predicted = [](const Outcome& o) {
      return nlohmann::json::parse(o.out)["metrics"]["makespan_ns"]["p50"].get<double>();
    };
    const double err = std::abs(predicted(one) - measured) / measured;
    errors.push_back(err);
    band = nlohmann::json::parse(one.out)["error_band"].get<double>();
    // Every run within 12 % since a GEMM's pieces, the per-call launches and
    // the whole-GPU grid (issue 54; 25 % before): the worst is ag_gemm P 4
    // chunked at 10.9 %, then out_proj serial at 8.6 %.
    EXPECT_LT(err, 0.12);
    sum_err += err;
    sum_err_apart += std::abs(predicted(apart) - measured) / measured;
    ++rows;
  }
  ASSERT_EQ(rows, 19);
  // The band every loopback prediction carries covers 9 rows in 10
  // (h200-sxm.toml's [error_band] loopback, docs/simulator.md "Error bands").
  std::sort(errors.begin(), errors.end());
  const double p90 = errors[size_t(std::ceil(0.9 * double(errors.size()))) - 1];
  EXPECT_GE(band, p90);
  EXPECT_LT(band, p90 + 0.01);
  // 16.6 % when written; 18.5 % with the H100 kernel model; 5.9 % since
  // loopback_overlap; 4.0 % since a GEMM's pieces, the per-call launches
  // and the whole-GPU grid (docs/simulator.md).
  EXPECT_LT(sum_err / rows, 0.045);
  EXPECT_GT(sum_err_apart / rows, 0.50);  // P GPUs instead of one: 76 %
}

}  // namespace
