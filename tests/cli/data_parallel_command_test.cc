// `braid run --dp` / `--dp-op` and `braid tune --dp`: a training step on a
// TP × DP grid, one DP op on its group (verified on the cpu backend in
// threads), and every bad DP value one line, exit 2, nothing written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace braid {
namespace {

using ::testing::HasSubstr;
using testing_cli::Braid;
using testing_cli::Outcome;
using testing_cli::TempPath;

const std::string kStep =
    "run --model llama3-8b --seq 4096 --tp 8 --phase train --algo ring --topology h100-sxm-2node-ib ";

void RefusedWithNothingWritten(const std::string& args, const std::string& message) {
  testing_cli::ExpectRefusedWithNothingWritten(args, message, "dp_refused.db");
}

TEST(CliDataParallel, RunGivesTheWholeStepBesideTheBlock) {
  const Outcome o = Braid(kStep + "--dp 2 --zero 1 --no-db --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  const auto& step = j.at("train_step");
  EXPECT_EQ(step["layers"], 32);
  EXPECT_EQ(step["dp"], 2);
  EXPECT_EQ(step["zero"], "1");
  EXPECT_EQ(step["bucket_params"], 40000000);
  EXPECT_GT(step["grad_collectives"].get<int>(), 1);
  EXPECT_EQ(step["gather_collectives"], 32);
  EXPECT_NEAR(step["step_ns"].get<double>(), 32 * step["block_ns"].get<double>() + step["dp_exposed_ns"].get<double>(),
              1e-6 * step["step_ns"].get<double>());
  EXPECT_GT(step["mfu"].get<double>(), 0.0);
  // The block itself is the run: its makespan is the step's block.
  EXPECT_DOUBLE_EQ(j["metrics"]["makespan_ns"]["p50"].get<double>(), step["block_ns"].get<double>());
  // The serial schedule leaves every gradient for after the backward.
  const Outcome serial = Braid(kStep + "--dp 2 --zero 1 --dp-schedule serial --no-db --json");
  ASSERT_EQ(serial.code, 0) << serial.err;
  const auto s = nlohmann::json::parse(serial.out)["train_step"];
  EXPECT_EQ(s["grad_collectives"], 1);
  EXPECT_GT(s["step_ns"].get<double>(), step["step_ns"].get<double>());
  // The text table says the same.
  const Outcome text = Braid(kStep + "--dp 2 --zero 3 --dp-schedule decomposed --decomposed-layers 2 --no-db");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("training step (sim): 32 blocks, TP 8 x DP 2"));
  EXPECT_THAT(text.out, HasSubstr("decomposed fc1.grad_rs"));
  EXPECT_THAT(text.out, HasSubstr("infiniband, 1 rail(s)"));
}

// A block small enough for the cpu backend's real GEMMs on a shared CPU.
std::string SmallModel() {
  std::string path = TempPath("dp_small_model.toml");
  std::ofstream(path) << "name = \"dp-small\"\nhidden = 256\nheads = 8\nkv_heads = 4\nhead_dim = 32\n"
                         "ffn = 512\ngated_mlp = true\nlayers = 2\nsource = \"a test block\"\n";
  return path;
}

TEST(CliDataParallel, ADpOpRunsAloneOnItsGroupAndVerifiesOnTheCpu) {
  const std::string model = SmallModel();
  for (const char* op : {"fc1.grad_rs", "qkv.param_ag", "out_proj.grad_rs"}) {
    for (const char* algo : {"serial", "ring", "direct"}) {
      SCOPED_TRACE(std::string(op) + " " + algo);
      const Outcome o =
          Braid("run --backend cpu --model " + model + " --seq 64 --tp 2 --phase train --dp 4 --zero 3 --dp-op " +
                std::string(op) + " --algo " + algo + " --verify --iters 1 --warmup 0 --no-db --json");
      ASSERT_EQ(o.code, 0) << o.err;
      const auto j = nlohmann::json::parse(o.out);
      EXPECT_TRUE(j["verify"]["ok"].get<bool>());
      EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-4);
      EXPECT_EQ(j["ranks"].size(), 4u);  // the DP group's ranks
      EXPECT_THAT(j["notes"].dump(), HasSubstr("over the DP group of 4 (tp 2 x dp 4 grid)"));
    }
  }
  // A plain DDP gradient is all-reduced; on the sim, over the group's links.
  const Outcome ar = Braid(kStep + "--dp 2 --dp-op fc2.grad_ar --no-db --json");
  ASSERT_EQ(ar.code, 0) << ar.err;
  const auto j = nlohmann::json::parse(ar.out);
  EXPECT_EQ(j["workload"]["op"], "gemm_ar");
  EXPECT_EQ(j["workload"]["tp"], 2);
  EXPECT_THAT(j["topology"].get<std::string>(), HasSubstr("dp group of 2, tp 8"));
}

TEST(CliDataParallel, BadDpValuesAreOneLineExitTwoNothingWritten) {
  RefusedWithNothingWritten(kStep + "--dp 0", "--dp must be at least 1");
  RefusedWithNothingWritten(kStep + "--dp 4", "--dp 4 with --tp 8 needs 32 GPUs; topology 'h100-sxm-2node-ib' has 16");
  RefusedWithNothingWritten(kStep + "--dp 2 --zero 4", "--zero must be 1, 2 or 3");
  RefusedWithNothingWritten(kStep + "--dp 2 --zero 1 --fsdp", "--fsdp is --zero 3");
  RefusedWithNothingWritten(kStep + "--dp 2 --bucket-size 0", "--bucket-size must be at least 1");
  RefusedWithNothingWritten(kStep + "--dp 2 --bucket-size 99999999999999", "is beyond the");
  RefusedWithNothingWritten(kStep + "--zero 1", "--zero needs --dp 2 or more");
  RefusedWithNothingWritten(kStep + "--dp 2 --prefetch 0", "--prefetch must be at least 1");
  RefusedWithNothingWritten(kStep + "--dp 2 --prefetch 2", "--prefetch applies to parameter gathers");
  RefusedWithNothingWritten(kStep + "--dp 2 --decomposed-layers 2", "needs --dp-schedule decomposed");
  RefusedWithNothingWritten(kStep + "--dp 2 --dp-schedule overlapped", "unknown DP schedule 'overlapped'");
  RefusedWithNothingWritten(kStep + "--dp 2 --dp-schedule decomposed --dp-algo direct", "fc2.grad_ar decomposed");
  RefusedWithNothingWritten(kStep + "--dp 2 --layers 2000000000",
                            "--layers must be between 0 (the model's) and 100000");
  RefusedWithNothingWritten(kStep + "--dp 2 --layers -1", "--layers must be 0 (the model's) or more");
  RefusedWithNothingWritten(kStep + "--dp 2 --dp-schedule decomposed --dp-chunks 100000000", "chunks");
  RefusedWithNothingWritten(kStep + "--dp 2 --dp-comm-sms 2000000000",
                            "--dp-comm-sms 2000000000 of the DP collectives must leave the");
  RefusedWithNothingWritten(kStep + "--dp 2 --dp-op nope", "--dp-op 'nope' is not a DP op of this block");
  RefusedWithNothingWritten(kStep + "--dp 2 --backend cpu", "run each DP op alone with --dp-op");
  RefusedWithNothingWritten(kStep + "--dp 2 --loopback",
                            "--dp and --loopback: a loopback run puts every rank on one GPU");
  RefusedWithNothingWritten(
      "run --model llama3-8b --seq 4096 --tp 8 --phase prefill --algo ring --dp 2 --topology h100-sxm-2node-ib",
      "--dp gives a training step");
  // ZeRO scatters each gradient's rows: a DP size that does not divide them.
  RefusedWithNothingWritten(
      "run --model llama3-8b --seq 4096 --tp 2 --phase train --algo ring --dp 3 --zero 1 --topology "
      "h100-sxm-2node-ib",
      "--dp 3 does not divide fc2's weight rows 7168");
  RefusedWithNothingWritten(
      "tune --model llama3-8b --seq 4096 --tp 8 --phase train --topology h100-sxm-2node-ib --dp 2 --zero 9 --out " +
          TempPath("dp_refused.toml"),
      "--zero must be 1, 2 or 3");
  RefusedWithNothingWritten("tune --model llama3-8b --seq 4096 --tp 8 --topology h100-sxm-2node-ib --dp 2 --out " +
                                TempPath("dp_refused.toml"),
                            "--dp tunes a training step: it needs --model and --phase train");
}

TEST(CliDataParallel, TuneSearchesTheDpSideAndSaysWhatMegatronRuns) {
  const std::string db = TempPath("dp_tune.db"), out = TempPath("dp_tune.toml");
  const Outcome o = Braid(
      "tune --model llama3-8b --seq 4096 --tp 8 --phase train --topology h100-sxm-2node-ib "
      "--dp 2 --zero 1 --no-progress --json --db " +
      db + " --out " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out)["train_step"];
  EXPECT_GT(j["candidates"].get<int>(), 20);
  const double serial = j["serial_tp_megatron_dp"]["step_ns"], megatron = j["tuned_tp_megatron_dp"]["step_ns"],
               tuned = j["tuned"]["step_ns"];
  EXPECT_LE(tuned, megatron);
  EXPECT_LT(megatron, serial);
  EXPECT_THAT(j["megatron_args"].get<std::string>(), HasSubstr("--use-distributed-optimizer --overlap-grad-reduce"));
  EXPECT_EQ(j["megatron_setup"], "dp=2 zero=1 bucketed bucket=40000000 prefetch=1");
  // The winner is kept beside the TP presets, keyed by the block and the grid.
  const Outcome shown = Braid("presets show " + out + " --json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  const auto presets = nlohmann::json::parse(shown.out);
  EXPECT_EQ(presets["version"], 5);
  ASSERT_EQ(presets["dp_presets"].size(), 1u);
  const auto& dp = presets["dp_presets"][0];
  EXPECT_EQ(dp["model"], "llama3-8b");
  EXPECT_EQ(dp["tokens"], 4096);
  EXPECT_EQ(dp["dp"], 2);
  EXPECT_EQ(dp["zero"], "1");
  EXPECT_DOUBLE_EQ(dp["step_ns"].get<double>(), tuned);
  std::filesystem::remove(db);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace braid
