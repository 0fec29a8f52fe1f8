// What Braid tunes is what TransformerEngine runs, end to end through the
// real binary: `run --ub-cfgs` evaluates a user's ub_cfgs GEMM by GEMM, `tune
// --runtime te` searches only what TE expresses, `presets export-te` writes
// exactly that, and evaluating the export again gives the tuned block's time.
#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;
using ::testing::AllOf;
using ::testing::HasSubstr;
using Json = nlohmann::json;

// llama3-8b's training block at TP 4: small enough for a test, every key.
const std::string kBlock = " --model llama3-8b --seq 2048 --batch 1 --tp 4 --topology h100-sxm --phase train";

// Megatron-Bridge's hand-set style: bulk with two budgets, ring_exchange
// all-gathers, pipelined reduce-scatters.
const char* kHandSet =
    "qkv_dgrad: {method: bulk, num_sm: 4, cga_size: 2, set_sm_margin: 0}\n"
    "qkv_wgrad: {method: bulk, num_sm: 24, cga_size: 2, set_sm_margin: 0}\n"
    "fc1_dgrad: {method: bulk, num_sm: 2, cga_size: 2, set_sm_margin: 0}\n"
    "fc1_wgrad: {method: bulk, num_sm: 4, cga_size: 2, set_sm_margin: 0}\n"
    "qkv_fprop: {method: ring_exchange, aggregate: 0}\n"
    "proj_dgrad: {method: ring_exchange, aggregate: 0}\n"
    "fc1_fprop: {method: ring_exchange, aggregate: 0}\n"
    "fc2_dgrad: {method: ring_exchange, aggregate: 0}\n"
    "proj_fprop: {method: pipeline, num_sm: 24, cga_size: 2, num_splits: 4, set_sm_margin: 1}\n"
    "fc2_fprop: {method: pipeline, num_sm: 16, cga_size: 2, num_splits: 4, set_sm_margin: 1}\n";

std::string WriteText(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

Json Parsed(const Outcome& o) {
  Json j = Json::parse(o.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << o.out << o.err;
  return j;
}

double Makespan(const Json& run) { return run["metrics"]["makespan_ns"]["p50"].get<double>(); }

// Each GEMM's time and config in the text table and in --json.
TEST(TeRoundTrip, RunUbCfgsTimesEveryGemmAsTheFileSays) {
  const std::string yaml = WriteText("hand_set.yaml", kHandSet);
  const Outcome o = Braid("run" + kBlock + " --ub-cfgs " + yaml + " --no-db --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const Json j = Parsed(o);
  const Json& ops = j["workload"]["ops"];
  ASSERT_EQ(ops.size(), 14u);
  std::map<std::string, Json> by_name;
  for (const Json& op : ops) by_name[op["name"].get<std::string>()] = op;
  for (const char* gemm : {"qkv.fprop", "out_proj.fprop", "fc1.fprop", "fc2.fprop", "fc2.dgrad", "fc2.wgrad",
                           "fc1.dgrad", "fc1.wgrad", "out_proj.dgrad", "out_proj.wgrad", "qkv.dgrad", "qkv.wgrad"}) {
    const Json& op = by_name.at(gemm);
    EXPECT_GT(op["time_ns"].get<double>(), 0) << gemm;
    EXPECT_TRUE(op["config"].is_object()) << gemm;
  }
  EXPECT_EQ(by_name.at("qkv.dgrad")["config"]["comm_sms"], 4);
  EXPECT_EQ(by_name.at("qkv.wgrad")["config"]["comm_sms"], 24);
  EXPECT_EQ(by_name.at("out_proj.fprop")["config"]["algorithm"], "chunked");
  EXPECT_EQ(by_name.at("out_proj.fprop")["config"]["sm_margin"], true);
  EXPECT_EQ(by_name.at("fc2.wgrad")["config"]["algorithm"], "external");
  EXPECT_EQ(by_name.at("qkv.fprop")["config"]["comm_engine"], "ce");

  const Outcome text = Braid("run" + kBlock + " --ub-cfgs " + yaml + " --no-db");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, AllOf(HasSubstr("op (worst rank, p50)"), HasSubstr("qkv.dgrad"),
                              HasSubstr("bulk chunks=1 streams=1 comm_sms=4"), HasSubstr("note      ub_cfgs ")));
}

// tune --runtime te, export, evaluate the export: the tuned block's time
// within 1 %, every winner exported exactly, and the tuned block never
// slower than TE's default or the baseline.
TEST(TeRoundTrip, ARuntimeTeTuneExportsExactlyAndRunsBackToItsTime) {
  const std::string yaml = WriteText("baseline.yaml", kHandSet);
  const std::string db = TempPath("rt.db"), presets = TempPath("rt.toml"), out = TempPath("rt.yaml");
  for (const std::string& f : {db, presets, out}) std::filesystem::remove(f);
  const Outcome tune = Braid("tune" + kBlock + " --runtime te --baseline " + yaml + " --db " + db + " --out " +
                             presets + " --no-progress --json");
  ASSERT_EQ(tune.code, 0) << tune.err;
  const Json t = Parsed(tune);
  const double tuned = t["block"]["tuned"]["time_ns"].get<double>();
  const double te_default = t["block"]["te_default"]["time_ns"].get<double>();
  const double baseline = t["block"]["baseline"]["time_ns"].get<double>();
  EXPECT_LE(tuned, te_default);
  EXPECT_LE(tuned, baseline);
  for (const Json& r : t["results"]) {
    EXPECT_LE(r["time_ns"].get<double>(), r["te_default_ns"].get<double>()) << r["op"];
    EXPECT_LE(r["time_ns"].get<double>(), r["baseline_ns"].get<double>()) << r["op"];
  }

  const Outcome exported = Braid("presets export-te " + presets + kBlock + " -o " + out);
  ASSERT_EQ(exported.code, 0) << exported.err;  // exact: no --nearest needed
  EXPECT_EQ(exported.err, "");
  const Outcome run = Braid("run" + kBlock + " --ub-cfgs " + out + " --no-db --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const double again = Makespan(Parsed(run));
  EXPECT_NEAR(again, tuned, 0.01 * tuned) << "the export runs another block than was tuned";

  // The baseline evaluated alone is the tune's baseline figure.
  const Outcome hand = Braid("run" + kBlock + " --ub-cfgs " + yaml + " --no-db --json");
  ASSERT_EQ(hand.code, 0) << hand.err;
  EXPECT_NEAR(Makespan(Parsed(hand)), baseline, 0.01 * baseline);
}

// The same tune for Braid's own runtime may pick plans TE has not: its
// export is refused unless --nearest, which then times both blocks.
TEST(TeRoundTrip, ARuntimeBraidWinnerTeCannotRunIsRefusedOrTimedAsNearest) {
  const std::string db = TempPath("rb.db"), presets = TempPath("rb.toml");
  for (const std::string& f : {db, presets}) std::filesystem::remove(f);
  const std::string block = " --model llama3-70b --seq 8192 --batch 1 --tp 8 --topology h100-sxm --phase train";
  const Outcome tune = Braid("tune" + block + " --db " + db + " --out " + presets + " --no-progress --json");
  ASSERT_EQ(tune.code, 0) << tune.err;
  const Outcome exact = Braid("presets export-te " + presets + block);
  ASSERT_EQ(exact.code, 2) << "this block's braid winners include plans TE has not (direct all-gathers)";
  EXPECT_THAT(exact.err, AllOf(HasSubstr("not expressible in TE"), HasSubstr("--runtime te")));
  EXPECT_EQ(exact.out, "");
  const Outcome nearest = Braid("presets export-te " + presets + block + " --nearest");
  ASSERT_EQ(nearest.code, 0) << nearest.err;
  EXPECT_THAT(nearest.err, AllOf(HasSubstr("this file runs the block in"), HasSubstr("the presets' configs in")));
}

// Bad input: one line naming the problem, exit 2, nothing written.
TEST(TeRoundTrip, BadUbCfgsAreOneLineExit2AndWriteNothing) {
  const std::string db = TempPath("bad_ub.db");
  std::filesystem::remove(db);
  struct Case {
    std::string text, want;
  };
  const Case cases[] = {
      {"qkv_fprop: [", "not YAML"},
      {"qkv_fprop: {method: pipeline}\n", "not supported for AllGather"},
      {"proj_fprop: {num_sm: 0}\n", "num_sm 0"},
      {"proj_fprop: {num_sm: 200}\n", "num_sm 200"},
      {"proj_fprop: {num_splits: 7}\n", "num_splits 7 does not divide"},
      {"proj_fprop: {atomic_gemm: 1}\n", "atomic_gemm 1"},
      {"qkv_fprop: {method: bulk}\n", "bulk"},
      {"fc1_fprop: {method: external}\n", "external"},
      {"no_such_key: {method: bulk}\n", "'no_such_key' is not one of TE's ub_cfgs keys"},
  };
  for (const Case& c : cases) {
    const std::string yaml = WriteText("bad.yaml", c.text);
    const Outcome o = Braid("run" + kBlock + " --ub-cfgs " + yaml + " --db " + db);
    EXPECT_EQ(o.code, 2) << c.text << o.err;
    EXPECT_THAT(o.err, AllOf(HasSubstr("braid run: "), HasSubstr(c.want))) << c.text;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << c.text;
  }
  // A FIFO or a device is refused before any read.
  const std::string fifo = TempPath("ub.fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& special : {fifo, std::string("/dev/zero")}) {
    const Outcome o = Braid("run" + kBlock + " --ub-cfgs " + special + " --no-db");
    EXPECT_EQ(o.code, 2) << special;
    EXPECT_THAT(o.err, HasSubstr(", not a ub_cfgs file")) << o.err;
  }
  std::filesystem::remove(fifo);
  // Knobs the file owns, given beside it; a file without a model.
  const std::string good = WriteText("good.yaml", kHandSet);
  for (const std::string& extra :
       {std::string(" --algo ring"), std::string(" --comm-sms 8"), std::string(" --sm-margin --algo bulk")}) {
    const Outcome o = Braid("run" + kBlock + " --ub-cfgs " + good + extra + " --no-db");
    EXPECT_EQ(o.code, 2) << extra;
    EXPECT_THAT(o.err, HasSubstr("--ub-cfgs")) << o.err;
  }
  const Outcome no_model = Braid("run --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 4 --ub-cfgs " + good + " --no-db");
  EXPECT_EQ(no_model.code, 2);
  EXPECT_THAT(no_model.err, HasSubstr("needs --model"));
  // A baseline for a shape it does not fit (num_splits 3 of 512 rows each).
  const std::string presets = TempPath("bad_base.toml");
  std::filesystem::remove(presets);
  const Outcome base = Braid("tune" + kBlock + " --baseline " +
                             WriteText("odd.yaml", "proj_fprop: {method: pipeline, num_splits: 3}\n") + " --db " + db +
                             " --out " + presets + " --no-progress");
  EXPECT_EQ(base.code, 2);
  EXPECT_THAT(base.err, AllOf(HasSubstr("proj_fprop"), HasSubstr("num_splits 3")));
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(presets));
}

// The new flags' own bad values: one line naming the flag, exit 2, nothing written.
TEST(TeRoundTrip, BadRuntimeSmBudgetsAndBaselineFilesAreOneLineExit2) {
  const std::string db = TempPath("bad_flags.db"), presets = TempPath("bad_flags.toml");
  std::filesystem::remove(db);
  std::filesystem::remove(presets);
  struct Case {
    std::string args, want;
  };
  const Case cases[] = {
      {"tune" + kBlock + " --runtime nope", "unknown runtime 'nope'"},
      {"tune" + kBlock + " --dtype fp8_e4m3 --runtime te --comm-dtype fp8_e4m3", "--comm-dtype with --runtime te"},
      {"tune" + kBlock + " --baseline /dev/zero", "not a ub_cfgs file"},
      {"tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 4 --baseline /dev/null", "needs --model"},
      {"run" + kBlock + " --algo bulk --wgrad-comm-sms -1", "--wgrad-comm-sms must not be negative"},
      {"run" + kBlock + " --algo ring --wgrad-comm-sms 8", "applies to bulk only"},
      {"run" + kBlock + " --algo serial --sm-margin --comm-sms 8", "serial runs none beside it"},
  };
  for (const Case& c : cases) {
    const Outcome o = Braid(c.args + " --db " + db + (c.args.rfind("tune", 0) == 0 ? " --out " + presets : "") +
                            (c.args.rfind("tune", 0) == 0 ? " --no-progress" : ""));
    EXPECT_EQ(o.code, 2) << c.args << o.err;
    EXPECT_THAT(o.err, HasSubstr(c.want)) << c.args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << c.args;
    EXPECT_FALSE(std::filesystem::exists(presets)) << c.args;
  }
}

}  // namespace
