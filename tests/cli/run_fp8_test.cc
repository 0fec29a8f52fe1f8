// `braid run` with FP8: the comm dtype reaches the plan's bytes and the
// record, fixed scales reach the run, and every FP8 misuse is one line and
// exit 2 with nothing written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace run_fp8_test {
namespace {

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;
using ::testing::HasSubstr;
using ::testing::StartsWith;

void ExpectUsageError(const std::string& args, const std::string& message) {
  SCOPED_TRACE(args);
  const std::string db = TempPath("fp8_refused.db");
  std::filesystem::remove(db);
  const Outcome o = Braid(args + " --db " + db);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr(message));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
  EXPECT_THAT(o.err, StartsWith("braid"));
  EXPECT_EQ(o.out, "") << "nothing printed on bad input";
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing written on bad input";
}

double CommNs(const std::string& args) {
  const Outcome o = Braid("run --no-db --json " + args);
  EXPECT_EQ(o.code, 0) << args << ": " << o.err;
  if (o.code != 0) return 0;
  return nlohmann::json::parse(o.out)["metrics"]["comm_ns"]["p50"].get<double>();
}

const std::string kSimAg = "--op ag_gemm --m 8192 --n 8192 --k 8192 --tp 8 --dtype fp8_e4m3 --algo ring ";
const std::string kSimRs = "--op gemm_rs --m 8192 --n 8192 --k 8192 --tp 8 --dtype fp8_e4m3 --algo ring ";

TEST(CliRunFp8, TheCommDTypeSetsWhatTransfersMove) {
  // A bf16 all-gather moves twice the FP8 one's bytes; FP8 reduce-scatter
  // partials half the bf16 ones'.
  const double ag_fp8 = CommNs(kSimAg), ag_bf16 = CommNs(kSimAg + "--comm-dtype bf16");
  EXPECT_GT(ag_bf16, 1.6 * ag_fp8);
  const double rs_bf16 = CommNs(kSimRs), rs_fp8 = CommNs(kSimRs + "--comm-dtype fp8_e4m3");
  EXPECT_GT(rs_bf16, 1.6 * rs_fp8);
  EXPECT_NEAR(CommNs(kSimAg + "--comm-dtype auto"), ag_fp8, 1e-9 * ag_fp8);
}

TEST(CliRunFp8, TheStoredConfigSaysWhatItMoved) {
  const std::string db = TempPath("fp8_comm.db");
  std::filesystem::remove(db);
  const Outcome o = Braid("run --json --db " + db + " " + kSimRs + "--comm-dtype fp8_e4m3");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["config"]["comm_dtype"], "fp8_e4m3");
  const Outcome listed = Braid("report --json --db " + db);  // read back from the store
  ASSERT_EQ(listed.code, 0) << listed.err;
  const auto runs = nlohmann::json::parse(listed.out)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["config"]["comm_dtype"], "fp8_e4m3");
  const Outcome plain = Braid("run --no-db --json " + kSimRs);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out)["config"].contains("comm_dtype")) << "unset is not recorded";
}

TEST(CliRunFp8, FixedScalesRunAndVerifyOnCpu) {
  const Outcome o = Braid(
      "run --no-db --json --backend cpu --op ag_gemm --m 64 --n 32 --k 64 --tp 4 --iters 1 --warmup 0 --algo ring "
      "--dtype fp8_e4m3 --verify --fp8-scale-a 64 --fp8-scale-b 128");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(nlohmann::json::parse(o.out)["verify"]["ok"].get<bool>());
  EXPECT_THAT(o.out, HasSubstr("A with the fixed scale 64, B with the fixed scale 128"))
      << "the scales reached the run";
}

TEST(CliRunFp8, MisuseIsOneLineAndExitTwo) {
  const std::string bf16 = "run --op ag_gemm --m 64 --n 64 --k 64 --tp 2 --algo ring ";
  const std::string fp8 = "run --op gemm_rs --m 64 --n 64 --k 64 --tp 2 --dtype fp8_e4m3 ";
  ExpectUsageError(bf16 + "--comm-dtype fp8_e4m3", "fp8_e4m3 applies to FP8 GEMMs only: a bf16 GEMM moves bf16");
  ExpectUsageError(fp8 + "--algo chunked --comm-dtype fp8_e4m3", "only ring and bidir_ring");
  ExpectUsageError(fp8 + "--algo ring --comm-dtype fp8_e5m2", "moves fp8_e4m3 (its input) or bf16 (its output)");
  ExpectUsageError(fp8 + "--algo ring --comm-dtype int8", "unknown dtype 'int8'");
  ExpectUsageError(fp8 + "--algo ring --comm-dtype fp8", "ambiguous");
  for (const char* bad : {"0", "-2", "nan", "inf", "1e39"}) {
    ExpectUsageError(fp8 + "--algo ring --backend cpu --fp8-scale-a " + bad, "--fp8-scale-a");
  }
  ExpectUsageError(fp8 + "--algo ring --backend cpu --fp8-scale-b 0", "--fp8-scale-b");
  ExpectUsageError(bf16 + "--backend cpu --fp8-scale-a 2", "--fp8-scale-a applies to FP8 dtypes");
  ExpectUsageError(
      "run --model llama3-8b --seq 64 --tp 2 --dtype fp8_e4m3 --algo chunked --chunks 2 --comm-dtype fp8_e4m3",
      "out_proj");
}

}  // namespace
}  // namespace run_fp8_test
