// `braid import` + `braid report --run N --by-gemm` on the framework trace
// fixtures (tests/data/framework_traces, README.md there): for each
// framework's pattern (TE ring_exchange, pipeline, bulk; async-TP AG-matmul
// and matmul-RS; NCCL), the overlap method seen and the verdict, and for its
// variant where the overlap did not fire, the verdict that says so; Kineto
// and Nsight Systems alike. Bad flags: one line, exit 2.
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
namespace {

using ::testing::HasSubstr;
using testing_cli::Braid;
using testing_cli::Outcome;
using testing_cli::TempPath;

std::string NsysFile(const std::string& fixture) { return testing_cli::NsysFixtureFile(fixture, ""); }

const std::string& kFixtures = testing_cli::kFrameworkFixtures;

struct Want {
  const char* fixture;
  const char* library;  // one library its comm must show
  const char* method;
  const char* fired_verdict;
  // The _not_fired variant: the same method (what was configured) but for
  // NCCL, whose variant is a plain GEMM then its collective.
  const char* not_fired_method;
  const char* not_fired_verdict;
};

const Want kWants[] = {
    {"te_ring_exchange", "te_userbuffers", "ring", "overlapped", "ring", "not_overlapped_although_configured"},
    {"te_pipeline", "te_userbuffers", "pipeline", "partly", "pipeline", "not_overlapped_although_configured"},
    {"te_bulk", "te_userbuffers", "bulk", "overlapped", "bulk", "not_overlapped_although_configured"},
    {"async_tp_ag_matmul", "torch_symm_mem", "async_tp", "overlapped", "async_tp",
     "not_overlapped_although_configured"},
    {"async_tp_matmul_rs", "copy_engine", "async_tp", "partly", "async_tp", "not_overlapped_although_configured"},
    {"nccl", "nccl", "pipeline", "partly", "none", "not_overlapped"},
};

// Imports `args` into a fresh store and returns the report's JSON.
nlohmann::json ByGemm(const std::string& import_args, const std::string& tag) {
  const std::string db = TempPath("by_gemm_" + tag + ".db");
  std::filesystem::remove(db);
  const Outcome imported = Braid("import " + import_args + " --db " + db);
  EXPECT_EQ(imported.code, 0) << imported.err;
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm --json");
  EXPECT_EQ(o.code, 0) << o.err;
  return o.code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}

void ExpectEveryGemm(const nlohmann::json& j, const std::string& method, const std::string& verdict,
                     const std::string& library) {
  ASSERT_TRUE(j.contains("gemms"));
  ASSERT_FALSE(j["gemms"].empty());
  for (const auto& g : j["gemms"]) {
    EXPECT_EQ(g["method"], method) << g.dump();
    EXPECT_EQ(g["verdict"], verdict) << g.dump();
    EXPECT_THAT(g["comm_libraries"].dump(), HasSubstr(library));
  }
  EXPECT_EQ(j["unassigned_comm_events"], 0);
}

TEST(CliReportByGemm, EachFrameworksPatternFiredAndNotFiredKineto) {
  for (const Want& w : kWants) {
    SCOPED_TRACE(w.fixture);
    const std::string dir = kFixtures + "/kineto/" + w.fixture;
    const nlohmann::json fired = ByGemm("kineto " + dir, w.fixture);
    ExpectEveryGemm(fired, w.method, w.fired_verdict, w.library);
    EXPECT_EQ(fired["gemms"].back()["rank"], 1);  // both ranks' files
    const nlohmann::json not_fired = ByGemm("kineto " + dir + "_not_fired", std::string(w.fixture) + "_nf");
    ExpectEveryGemm(not_fired, w.not_fired_method, w.not_fired_verdict, w.library);
  }
}

TEST(CliReportByGemm, EachFrameworksPatternFiredAndNotFiredNsys) {
  for (const Want& w : kWants) {
    SCOPED_TRACE(w.fixture);
    ExpectEveryGemm(ByGemm("nsys " + NsysFile(w.fixture), std::string(w.fixture) + "_ns"), w.method, w.fired_verdict,
                    w.library);
    const std::string nf = std::string(w.fixture) + "_not_fired";
    ExpectEveryGemm(ByGemm("nsys " + NsysFile(nf), nf + "_ns"), w.not_fired_method, w.not_fired_verdict, w.library);
  }
}

TEST(CliReportByGemm, GemmsAreLabelledByTheRangesAroundThem) {
  // async-TP's record_function range on the GPU timeline (Kineto), TE's
  // NVTX range on the host (Nsight Systems, NVTE_NVTX_ENABLED=1).
  const nlohmann::json kineto = ByGemm("kineto " + kFixtures + "/kineto/async_tp_ag_matmul", "label_k");
  EXPECT_EQ(kineto["gemms"][0]["label"], "fused_all_gather_matmul");
  EXPECT_EQ(kineto["unlabelled_gemms"], 0);
  const nlohmann::json nsys = ByGemm("nsys " + NsysFile("te_ring_exchange"), "label_n");
  EXPECT_EQ(nsys["gemms"][0]["label"], "transformer_engine._Linear.forward.qkv.gemm");
}

TEST(CliReportByGemm, TheImportedRunCountsTheFrameworksCommunication) {
  // Before: TE's kernels were no communication, and the run's overlap 0.
  const std::string db = TempPath("by_gemm_metrics.db");
  std::filesystem::remove(db);
  const Outcome o = Braid("import kineto " + kFixtures + "/kineto/te_ring_exchange --db " + db + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_GT(j["metrics"]["comm_ns"]["p50"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(j["metrics"]["overlap_ratio"]["p50"].get<double>(), 1.0);
}

TEST(CliReportByGemm, TheTableShowsOneRankAndIterationWithEveryVerdictCounted) {
  const std::string db = TempPath("by_gemm_text.db");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid("import kineto " + kFixtures + "/kineto/te_bulk_not_fired --db " + db).code, 0);
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm --rank 1");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("GEMMs of rank 1, iteration 0"));
  EXPECT_THAT(o.out, HasSubstr("bulk"));
  EXPECT_THAT(o.out, HasSubstr("te_userbuffers all_gather"));
  EXPECT_THAT(o.out, HasSubstr("verdicts, every rank and iteration: not_overlapped_although_configured 4"));
  // Kineto: TE's ranges are NVTX only and TE's GEMMs run outside PyTorch's
  // ops, so no GEMM is mapped to a layer and pass, and it says why.
  EXPECT_THAT(o.out,
              HasSubstr("unmapped #0, #1: no NVTX range names it and no PyTorch op with Input Dims launched it"));
}

TEST(CliReportByGemm, BadFlagsAreOneLineExitTwo) {
  const std::string db = TempPath("by_gemm_bad.db");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid("import kineto " + kFixtures + "/kineto/nccl --db " + db).code, 0);
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {Case{"--by-gemm", "--by-gemm reports one run: give --run N"},
                        Case{"--run 1 --rank 0", "--rank and --iteration go with --by-gemm"},
                        Case{"--run 1 --by-gemm --rank 7", "--rank 7: no GEMM on that rank (ranks with GEMMs: 0, 1)"},
                        Case{"--run 1 --by-gemm --iteration 9", "--iteration 9: no GEMM in it on rank 0"},
                        Case{"--run 1 --by-gemm --rank -1", "--rank must not be negative"}}) {
    SCOPED_TRACE(c.args);
    const Outcome o = Braid("report --db " + db + " " + c.args);
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_THAT(o.err, HasSubstr(c.says));
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
  }
}

TEST(CliReportByGemm, AUbCfgsIsCheckedKeyByKey) {
  const std::string yaml = TempPath("by_gemm_ub.yaml");
  // The trace ran ring_exchange on qkv_fprop; the file says pipeline there,
  // bulk for qkv_dgrad (absent from this trace), and leaves the rest to TE.
  std::ofstream(yaml) << "qkv_fprop:\n  method: pipeline\n  num_splits: 4\nqkv_dgrad:\n  method: bulk\n";
  const std::string db = TempPath("by_gemm_ub.db");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid("import nsys " + NsysFile("te_ring_exchange") + " --db " + db).code, 0);
  Outcome o = Braid("report --db " + db + " --run 1 --by-gemm --ub-cfgs " + yaml + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["ub_cfgs"].size(), 12u);
  EXPECT_EQ(j["ub_cfgs"][0]["key"], "qkv_fprop");
  EXPECT_EQ(j["ub_cfgs"][0]["method"], "pipeline");
  EXPECT_EQ(j["ub_cfgs"][0]["from_file"], true);
  EXPECT_EQ(j["ub_cfgs"][0]["finding"], "other_method");
  EXPECT_EQ(j["ub_cfgs"][0]["methods_seen"]["ring"], 2);
  EXPECT_EQ(j["ub_cfgs"][1]["finding"], "not_in_trace");
  // TE's own default for qkv_fprop is ring_exchange: an empty file finds it.
  const std::string empty = TempPath("by_gemm_ub_empty.yaml");
  std::ofstream(empty) << "{}\n";
  o = Braid("report --db " + db + " --run 1 --by-gemm --ub-cfgs " + empty);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("qkv_fprop    ring_exchange  default  2      ring 2                  seen"));
  // A bad file: one line naming it, exit 2, nothing printed.
  const std::string bad = TempPath("by_gemm_ub_bad.yaml");
  std::ofstream(bad) << "qkv_fprop:\n  method: rng\n";
  o = Braid("report --db " + db + " --run 1 --by-gemm --ub-cfgs " + bad);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("'rng' is not a TE overlap method"));
  EXPECT_EQ(o.out, "");
  o = Braid("report --db " + db + " --run 1 --ub-cfgs " + yaml);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--ub-cfgs goes with --by-gemm"));
}

TEST(CliReportByGemm, BraidsOwnRunsAreReportedToo) {
  // Braid's own runs name their steps: a sim ring's GEMMs are "gemm" steps,
  // its transfers communication of no library.
  const std::string db = TempPath("by_gemm_sim.db");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid("run --op ag_gemm --m 4096 --n 4096 --k 4096 --tp 4 --algo ring --db " + db).code, 0);
  const Outcome o = Braid("report --db " + db + " --run 1 --by-gemm --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_FALSE(j["gemms"].empty());
  EXPECT_EQ(j["gemms"][0]["comm_libraries"][0], "other");
}

}  // namespace
}  // namespace braid
