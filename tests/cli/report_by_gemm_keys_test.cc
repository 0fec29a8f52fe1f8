// `braid report --by-gemm` naming each traced GEMM's layer and pass (its
// ub_cfgs key: TE's and Megatron-LM's NVTX ranges, or the shape of the
// PyTorch op that launched it against `--model`'s block), Braid's
// prediction beside each key, the trace's TP size against `--tp` and a
// ub_cfgs file, and `braid import --ub-cfgs`. Fixtures:
// tests/data/framework_traces (README.md there).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "framework_fixtures.h"

namespace braid {
namespace report_by_gemm_keys_test {
namespace {

using ::testing::HasSubstr;
using testing_cli::Braid;
using testing_cli::Outcome;
using testing_cli::TempPath;

std::string NsysFile(const std::string& fixture) { return testing_cli::NsysFixtureFile(fixture, "keys_"); }

const std::string& kFixtures = testing_cli::kFrameworkFixtures;
const std::string kBlock = " --model llama3-8b --seq 1024";  // the fixtures' block (README.md)

std::string Imported(const std::string& import_args, const std::string& tag) {
  std::string db = TempPath("keys_" + tag + ".db");
  std::filesystem::remove(db);
  const Outcome o = Braid("import " + import_args + " --db " + db);
  EXPECT_EQ(o.code, 0) << o.err;
  return db;
}

nlohmann::json ReportJson(const std::string& db, const std::string& args) {
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm --json" + args);
  EXPECT_EQ(o.code, 0) << o.err;
  return o.code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}

const nlohmann::json* PredictionOf(const nlohmann::json& j, const std::string& key) {
  for (const auto& k : j["prediction"]["keys"]) {
    if (k["key"] == key) return &k;
  }
  return nullptr;
}

TEST(CliReportByGemmKeys, ShapesMapKinetoGemmsAndThePredictionStandsBeside) {
  struct Case {
    const char* fixture;
    const char* key;
  };
  for (const Case& c : {Case{"async_tp_ag_matmul", "qkv_fprop"}, Case{"async_tp_matmul_rs", "proj_fprop"},
                        Case{"nccl_not_fired", "fc2_fprop"}, Case{"async_tp_ag_matmul_not_fired", "qkv_fprop"}}) {
    SCOPED_TRACE(c.fixture);
    const std::string db = Imported("kineto " + kFixtures + "/kineto/" + c.fixture, c.fixture);
    // Without the block: the op and its dims are there, the key is not.
    nlohmann::json j = ReportJson(db, "");
    ASSERT_FALSE(j["gemms"].empty());
    EXPECT_TRUE(j["gemms"][0]["key"].is_null());
    EXPECT_THAT(j["gemms"][0]["op"].get<std::string>(), HasSubstr("[["));
    EXPECT_EQ(j["gemms"][0]["unmapped_why"], "no NVTX range names it; its shape maps with --model, --seq and --tp");
    EXPECT_EQ(j["unmapped_gemms"], j["gemms"].size());
    // With it: every GEMM (both ranks) is the key, and the sim's figures of
    // that key's op stand beside the trace's.
    j = ReportJson(db, kBlock);
    EXPECT_EQ(j["tp"], 2);
    for (const auto& g : j["gemms"]) {
      EXPECT_EQ(g["key"], c.key) << g.dump();
      EXPECT_EQ(g["key_source"], "shape");
    }
    EXPECT_EQ(j["unmapped_gemms"], 0);
    EXPECT_EQ(j["prediction"]["configured_by"], "serial");
    EXPECT_THAT(j["prediction"]["block"].get<std::string>(), HasSubstr("llama3-8b train seq=1024"));
    ASSERT_EQ(j["prediction"]["keys"].size(), 12u);  // a training block's twelve keys
    const nlohmann::json* k = PredictionOf(j, c.key);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ((*k)["measured"]["gemms"], 2);
    EXPECT_GT((*k)["measured"]["span_ns"].get<double>(), 0);
    EXPECT_GT((*k)["predicted"]["time_ns"].get<double>(), (*k)["predicted"]["compute_ns"].get<double>() * 0.99);
    EXPECT_GT((*k)["predicted"]["compute_ns"].get<double>(), 0);
    EXPECT_TRUE((*PredictionOf(j, "fc1_dgrad"))["measured"].is_null());  // not in the trace
  }
}

TEST(CliReportByGemmKeys, TheTablesNameKeysAndPredictions) {
  const std::string db = Imported("kineto " + kFixtures + "/kineto/async_tp_matmul_rs", "table");
  Outcome o = Braid("report --db " + db + " --run 1 --by-gemm" + kBlock);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("0   proj_fprop  fused_matmul_redu"));
  EXPECT_THAT(o.out, HasSubstr("Braid's prediction (sim, h100-sxm; llama3-8b train seq=1024 batch=1 bf16 P=2"));
  EXPECT_THAT(o.out, HasSubstr("configs: serial"));
  EXPECT_THAT(o.out, HasSubstr("proj_fprop  2      "));
  // Without --model the table says which GEMMs are not mapped and why.
  o = Braid("report --db " + db + " --run 1 --by-gemm");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("unmapped #0: no NVTX range names it; its shape maps with --model, --seq and --tp"));
}

TEST(CliReportByGemmKeys, AShapeOfNoKeyIsListedUnmappedAndTheReportStillExitsZero) {
  // The same trace against another model: no key has its shapes.
  const std::string db = Imported("kineto " + kFixtures + "/kineto/nccl_not_fired", "other_model");
  const nlohmann::json j = ReportJson(db, " --model llama3-70b --seq 1024");
  ASSERT_FALSE(j["gemms"].empty());
  EXPECT_TRUE(j["gemms"][0]["key"].is_null());
  EXPECT_EQ(j["gemms"][0]["unmapped_why"], "its shape 1024x4096x7168 (m x n x k) is no TP GEMM of the block given");
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm --model llama3-70b --seq 1024");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("unmapped #0: its shape 1024x4096x7168 (m x n x k) is no TP GEMM of the block given"));
}

TEST(CliReportByGemmKeys, AModelsManyUnmappedGemmsAreListedShort) {
  // Fifteen GEMMs (kernel names alternate, so each is its own): the note
  // lists twelve and counts the rest.
  std::string events;
  for (int i = 0; i < 15; ++i) {
    events += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "sm90_gemm_)" + (i % 2 ? "a" : "b") +
              R"(", "ts": )" + std::to_string(10 * i) + R"(, "dur": 5, "args": {"device": 0, "stream": 7}})";
  }
  const std::string trace = TempPath("keys_many.json");
  std::ofstream(trace) << R"({"traceEvents": [)" << events << "]}";
  const std::string db = Imported("kineto " + trace, "many");
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("unmapped #0, #1, #2, #3, #4, #5, #6, #7, #8, #9, #10, #11 and 3 more: no NVTX range"));
}

TEST(CliReportByGemmKeys, MegatronsNvtxRangesNameTheKeys) {
  nlohmann::json j = ReportJson(Imported("nsys " + NsysFile("nccl"), "megatron_ag"), "");
  ASSERT_FALSE(j["gemms"].empty());
  EXPECT_EQ(j["gemms"][0]["key"], "qkv_fprop");
  EXPECT_EQ(j["gemms"][0]["key_source"], "megatron_nvtx");
  j = ReportJson(Imported("nsys " + NsysFile("nccl_not_fired"), "megatron_rs"), "");
  EXPECT_EQ(j["gemms"][0]["key"], "fc2_fprop");
}

TEST(CliReportByGemmKeys, TheUbCfgsFilesConfigsArePredictedAndItsKeysChecked) {
  const std::string db = Imported("nsys " + NsysFile("te_ring_exchange"), "ub_predict");
  const std::string empty = TempPath("keys_empty.yaml");
  std::ofstream(empty) << "{}\n";
  const nlohmann::json j = ReportJson(db, kBlock + " --ub-cfgs " + empty);
  EXPECT_EQ(j["prediction"]["configured_by"], "ub_cfgs " + empty);
  const nlohmann::json* qkv = PredictionOf(j, "qkv_fprop");
  ASSERT_NE(qkv, nullptr);
  EXPECT_THAT((*qkv)["config"].get<std::string>(), HasSubstr("ring"));  // TE's default for qkv_fprop
  EXPECT_EQ((*qkv)["measured"]["gemms"], 2);                            // TE's NVTX range named them
  EXPECT_EQ(j["ub_cfgs"][0]["finding"], "seen");
  EXPECT_TRUE(j["ub_cfgs"][0]["note"].is_null());  // one GEMM chunk per rank of TP 2
}

TEST(CliReportByGemmKeys, APresetFilesConfigsArePredicted) {
  const std::string presets = TempPath("keys_presets.toml");
  std::filesystem::remove(presets);
  const std::string tune_db = TempPath("keys_tune.db");
  std::filesystem::remove(tune_db);
  const Outcome tuned =
      Braid("tune --model llama3-8b --seq 1024 --tp 2 --phase train --db " + tune_db + " --out " + presets);
  ASSERT_EQ(tuned.code, 0) << tuned.err;
  const std::string db = Imported("kineto " + kFixtures + "/kineto/async_tp_ag_matmul", "preset");
  const nlohmann::json j = ReportJson(db, kBlock + " --preset " + presets);
  EXPECT_EQ(j["prediction"]["configured_by"], "preset " + presets);
  const nlohmann::json* qkv = PredictionOf(j, "qkv_fprop");
  ASSERT_NE(qkv, nullptr);
  EXPECT_NE((*qkv)["config"], "serial");  // the tuner's winner overlaps
  // A preset file with nothing for this block (tuned for bf16): one line, exit 2.
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm" + kBlock + " --dtype fp16 --preset " + presets);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("has no entry for qkv.fprop"));
  EXPECT_EQ(o.out, "");
}

TEST(CliReportByGemmKeys, WhatDoesNotFitTheTraceIsOneLineExitTwo) {
  const std::string db = Imported("kineto " + kFixtures + "/kineto/async_tp_ag_matmul", "bad");
  const std::string empty = TempPath("keys_bad_empty.yaml");
  std::ofstream(empty) << "{}\n";
  const std::string splits = TempPath("keys_bad_splits.yaml");
  std::ofstream(splits) << "proj_fprop:\n  method: pipeline\n  num_splits: 3\n";
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {
           Case{"--tp 3", "--tp 3 does not fit the trace: it holds 2 rank(s), which TP groups of 3 do not divide"},
           Case{"--tp 4", "--tp 4 does not fit the trace"},
           Case{"--tp 0", "--tp must be at least 1"},
           Case{"--tp 1 --ub-cfgs " + empty, "the trace's TP size is 1 (2 rank(s)): no TP group"},
           Case{kBlock + " --ub-cfgs " + splits, "proj_fprop: num_splits 3 does not divide the 512 rows"},
           Case{"--model llama3-8b", "--model needs --seq"},
           Case{"--seq 1024", "give --model too"},
           Case{kBlock + " --preset a.toml --ub-cfgs " + empty, "give one"},
           Case{"--model nosuch --seq 1024", "nosuch"},
       }) {
    SCOPED_TRACE(c.args);
    const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm " + c.args);
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_THAT(o.err, HasSubstr(c.says));
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
  }
  const Outcome o = Braid("report --db " + db + " --run 1" + kBlock);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--model and --tp go with --by-gemm"));
}

TEST(CliReportByGemmKeys, ImportChecksAUbCfgsFile) {
  const std::string empty = TempPath("keys_import.yaml");
  std::ofstream(empty) << "{}\n";
  const std::string db = TempPath("keys_import.db");
  std::filesystem::remove(db);
  Outcome o = Braid("import nsys " + NsysFile("te_ring_exchange") + " --db " + db + " --ub-cfgs " + empty);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("qkv_fprop    ring_exchange  default  2      ring 2                  seen"));
  o = Braid("import nsys " + NsysFile("te_ring_exchange") + " --db " + db + " --ub-cfgs " + empty + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["ub_cfgs"][0]["finding"], "seen");
  // A bad file: refused before anything is read or written.
  const std::string bad = TempPath("keys_import_bad.yaml");
  std::ofstream(bad) << "qkv_fprop:\n  method: rng\n";
  testing_cli::ExpectRefusedWithNothingWritten("import nsys " + NsysFile("te_ring_exchange") + " --ub-cfgs " + bad,
                                               "'rng' is not a TE overlap method", "keys_import_bad.db");
  // A one-rank trace has no TP group: refused, and the store keeps what it had.
  const std::string one = TempPath("keys_one_rank.json");
  std::ofstream(one) << R"({"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [)"
                     << R"({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "ts": 10, "dur": 5,)"
                     << R"( "args": {"device": 0, "stream": 7, "correlation": 1}}]})";
  o = Braid("import kineto " + one + " --db " + db + " --ub-cfgs " + empty);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("the trace's TP size is 1 (1 rank(s)): no TP group"));
  o = Braid("report --db " + db + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["runs"].size(), 2u);  // the two imports before
}

}  // namespace
}  // namespace report_by_gemm_keys_test
}  // namespace braid
