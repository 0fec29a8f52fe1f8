// `braid run --sp ulysses`: a Ulysses block on the sim (the decomposed
// all-to-alls beside the plain ones) and on the cpu backend with --verify
// (threads), and every bad value one line, exit 2, nothing written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace braid {
namespace ulysses_command_test {
namespace {

using ::testing::HasSubstr;
using testing_cli::Braid;
using testing_cli::Outcome;
using testing_cli::TempPath;

const std::string kBlock = "run --model llama3-70b --seq 32K --tp 8 --sp ulysses ";

void RefusedWithNothingWritten(const std::string& args, const std::string& message) {
  testing_cli::ExpectRefusedWithNothingWritten(args, message, "ulysses_refused.db");
}

nlohmann::json RunJson(const std::string& args) {
  const Outcome o = Braid(args + " --no-db --json");
  EXPECT_EQ(o.code, 0) << o.err;
  return o.code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}

TEST(CliUlysses, TheDecomposedAllToAllsBeatThePlainOnesOnTheSim) {
  const auto plain = RunJson(kBlock + "--algo a2a");
  const auto direct = RunJson(kBlock + "--algo a2a_direct");
  ASSERT_TRUE(plain.contains("metrics") && direct.contains("metrics"));
  EXPECT_EQ(plain["workload"]["ulysses"], true);
  EXPECT_EQ(plain["workload"]["ops"].size(), 5u);
  EXPECT_EQ(plain["workload"]["ops"][3]["kind"], "gemm");  // fc1: the rank's own rows, no collective
  const double plain_ns = plain["metrics"]["makespan_ns"]["p50"].get<double>();
  const double direct_ns = direct["metrics"]["makespan_ns"]["p50"].get<double>();
  EXPECT_LT(direct_ns, plain_ns);
  // Both against the same bound: the plain all-to-all's compute and comm alone.
  EXPECT_DOUBLE_EQ(plain["lower_bound"]["lower_bound_ns"].get<double>(),
                   direct["lower_bound"]["lower_bound_ns"].get<double>());
  // The text names the block and each projection's method.
  const Outcome text = Braid(kBlock + "--algo a2a_direct --chunks 2 --no-db");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("sp=ulysses"));
  EXPECT_THAT(text.out, HasSubstr("a2a_direct chunks=2"));
}

TEST(CliUlysses, TheSpAliasAndTheLongFlagAreOne) {
  const auto sp = RunJson(kBlock + "--algo a2a");
  const auto full = RunJson("run --model llama3-70b --seq 32K --tp 8 --sequence-parallel ulysses --algo a2a");
  EXPECT_DOUBLE_EQ(sp["metrics"]["makespan_ns"]["p50"].get<double>(),
                   full["metrics"]["makespan_ns"]["p50"].get<double>());
}

TEST(CliUlysses, ABlockVerifiesOnTheCpuBackend) {
  const std::string model = TempPath("ulysses_small_model.toml");
  std::ofstream(model) << "name = \"ulysses-small\"\nhidden = 128\nheads = 8\nkv_heads = 4\nhead_dim = 16\n"
                          "ffn = 320\ngated_mlp = true\nlayers = 2\nsource = \"a test block\"\n";
  for (const char* algo : {"a2a", "a2a_direct"}) {
    const auto j = RunJson("run --backend cpu --model " + model + " --seq 64 --tp 4 --sp ulysses --algo " + algo +
                           " --iters 1 --warmup 0 --verify");
    ASSERT_TRUE(j.contains("verify")) << algo;
    EXPECT_TRUE(j["verify"]["ok"].get<bool>()) << algo;
    EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-5) << algo;
  }
}

TEST(CliUlysses, BadValuesAreOneLineExitTwoAndWriteNothing) {
  // Degrees that do not divide the heads or the sequence.
  RefusedWithNothingWritten(
      "run --model llama3-70b --seq 32K --tp 16 --sp ulysses --algo a2a --topology "
      "h100-sxm-2node-ib",
      "kv_heads=8 is not divisible by the Ulysses degree P=16");
  RefusedWithNothingWritten("run --model llama3-70b --seq 1001 --tp 8 --sp ulysses --algo a2a",
                            "--seq=1001 is not divisible by the Ulysses degree P=8");
  // Phases a Ulysses block does not model.
  RefusedWithNothingWritten("run --model llama3-70b --seq 4096 --tp 8 --sp ulysses --phase decode --algo a2a",
                            "decode has one new token per sequence");
  RefusedWithNothingWritten("run --model llama3-70b --seq 4096 --tp 8 --sp ulysses --phase train --algo a2a",
                            "a Ulysses training step is not modelled");
  // Tensor-parallel methods, and Ulysses methods on a tensor-parallel block.
  RefusedWithNothingWritten(kBlock + "--algo ring", "a Ulysses block's projections run a2a or a2a_direct");
  RefusedWithNothingWritten("run --model llama3-70b --seq 32K --tp 8 --algo a2a_direct",
                            "--algo a2a_direct is Ulysses sequence parallelism");
}

TEST(CliUlysses, UnknownModesAndTuneAreRefused) {
  RefusedWithNothingWritten("run --model llama3-70b --seq 32K --tp 8 --sp ulyses --algo a2a",
                            "--sequence-parallel 'ulyses': use on, off or ulysses");
  const std::string out = TempPath("ulysses_presets.toml");
  RefusedWithNothingWritten("tune --model llama3-70b --seq 32K --tp 8 --sp ulysses --out " + out,
                            "tune does not search Ulysses blocks");
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string yaml = TempPath("ulysses_ub_cfgs.yaml");
  std::ofstream(yaml) << "qkv_fprop:\n  method: ring_exchange\n";
  RefusedWithNothingWritten("run --model llama3-70b --seq 32K --tp 8 --sp ulysses --ub-cfgs " + yaml,
                            "a Ulysses block (llama3-70b prefill seq=32768 batch=1 bf16 P=8 sp=ulysses) has no "
                            "ub_cfgs");
}

}  // namespace
}  // namespace ulysses_command_test
}  // namespace braid
