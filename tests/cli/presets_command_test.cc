// End-to-end tests of `braid presets show|lookup` on the example file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace {

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;
using ::testing::HasSubstr;

const std::string kExample = std::string(BRAID_SOURCE_DIR) + "/presets/examples/example.toml";
const std::string kFc2 = " --op gemm_rs --n 8192 --k 28672 --tp 8 --gpu h100-sxm --topology h100-sxm --json";

TEST(CliPresets, ShowListsEveryEntry) {
  const Outcome o = Braid("presets show " + kExample + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["presets"].size(), 2u);
  EXPECT_EQ(j["presets"][0]["key"]["layer"], "llama3-70b/fc2");
  EXPECT_THAT(Braid("presets show " + kExample).out, HasSubstr("llama3-70b/fc1"));
}

TEST(CliPresets, LookupFollowsTheContract) {
  const Outcome exact = Braid("presets lookup " + kExample + " --m 4096" + kFc2);
  ASSERT_EQ(exact.code, 0) << exact.err;
  const auto e = nlohmann::json::parse(exact.out);
  EXPECT_EQ(e["match"], "exact");
  EXPECT_EQ(e["key"]["m"], 4096);
  EXPECT_EQ(e["config"]["algorithm"], "ring");
  EXPECT_GT(e["time_ns"].get<double>(), 0);

  const Outcome near = Braid("presets lookup " + kExample + " --m 8K" + kFc2);
  ASSERT_EQ(near.code, 0) << near.err;
  const auto n = nlohmann::json::parse(near.out);
  EXPECT_EQ(n["match"], "nearest");
  EXPECT_EQ(n["key"]["m"], 4096);
  EXPECT_NEAR(n["distance"].get<double>(), 0.6931, 1e-3);  // ln 2 in M
}

TEST(CliPresets, LookupAsksForOnePass) {
  const Outcome fprop = Braid("presets lookup " + kExample + kFc2 + " --m 4096 --pass fprop");
  EXPECT_EQ(fprop.code, 0) << fprop.err;
  const Outcome dgrad = Braid("presets lookup " + kExample + kFc2 + " --m 4096 --pass dgrad");
  EXPECT_EQ(dgrad.code, 1);  // the example holds fprop presets only
  EXPECT_THAT(dgrad.err, HasSubstr("no preset for gemm_rs M=4096 N=8192 K=28672 bf16 P=8 dgrad on h100-sxm"));
  const Outcome bad = Braid("presets lookup " + kExample + kFc2 + " --m 4096 --pass bprop");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "braid presets lookup: --pass: unknown pass 'bprop' (known: fprop, dgrad, wgrad)\n");
  EXPECT_EQ(bad.out, "");
}

TEST(CliPresets, NoMatchAndBadFilesAreReported) {
  const Outcome none = Braid("presets lookup " + kExample + " --m 4096 --op gemm_rs --n 8192 --k 28672 --tp 2");
  EXPECT_EQ(none.code, 1);
  EXPECT_THAT(none.err, HasSubstr("no preset for gemm_rs M=4096"));

  const Outcome missing = Braid("presets show " + TempPath("absent.toml"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("absent.toml"));
  EXPECT_EQ(missing.out, "");

  const std::string bad = TempPath("bad_presets.toml");
  std::ofstream(bad) << "format = \"braid-presets\"\nversion = 99\n";
  const Outcome newer = Braid("presets show " + bad);
  EXPECT_EQ(newer.code, 2);
  EXPECT_THAT(newer.err, HasSubstr(bad + ":2:"));
  EXPECT_EQ(newer.out, "");

  // A direct preset in a version-2 file: refused by the field, not read as
  // something else.
  const std::string old_version = TempPath("direct_v2_presets.toml");
  std::ofstream(old_version) << "format = \"braid-presets\"\nversion = 2\n[[preset]]\ngpu = \"h100-sxm\"\n"
                                "topology = \"h100-sxm\"\nbackend = \"sim\"\nop = \"gemm_rs\"\ndtype = \"bf16\"\n"
                                "m = 8192\nn = 8192\nk = 8192\ntp = 8\nalgorithm = \"direct\"\nchunks = 1\n"
                                "streams = 1\ncomm_sms = 0\ncomm_engine = \"sm\"\ncomm_priority = \"high\"\n"
                                "time_ns = 1000\nspeedup_vs_serial = 1.2\nspeedup_vs_te_default = 1.0\n"
                                "overlap_ratio = 0.5\ntail_ns = 0\nbraid_version = \"0.1.0\"\n"
                                "date = \"2026-11-28\"\n";
  const Outcome direct_v2 = Braid("presets show " + old_version);
  EXPECT_EQ(direct_v2.code, 2);
  EXPECT_THAT(direct_v2.err, HasSubstr("direct needs version = 3"));
  EXPECT_EQ(direct_v2.out, "");

  const Outcome flag = Braid("presets lookup " + kExample + " --m 0" + kFc2);
  EXPECT_EQ(flag.code, 2);
  EXPECT_THAT(flag.err, HasSubstr("--m '0': must be positive"));
}

}  // namespace
