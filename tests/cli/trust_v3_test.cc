// Hostile input, third round (issue 53): sizes that would wrap, rates no GPU
// has, messages that must stay one line, a symlink planted at a lock's path,
// a folder name that is not UTF-8.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_cli::Braid;
using testing_cli::ExpectRefusedWithNothingWritten;
using testing_cli::Outcome;
using testing_cli::TempPath;

TEST(CliTrustV3, TokensThatWouldWrapAreRefused) {
  // 6148914691236517206 x 3 wraps int64 to a small number; 4G x 4G to 0.
  ExpectRefusedWithNothingWritten(
      "run --model llama3-8b --seq 6148914691236517206 --batch 3 --tp 8 --algo ring",
      "--seq (6148914691236517206) times --batch (3) is more than the 1099511627776 tokens a block may hold",
      "wrap1.db");
  ExpectRefusedWithNothingWritten("run --model llama3-8b --seq 4G --batch 4G --tp 8 --algo ring",
                                  "is more than the 1099511627776 tokens a block may hold", "wrap2.db");
}

TEST(CliTrustV3, ATuneOfMillionsOfIterationsIsRefusedUpFront) {
  const std::string out = TempPath("iters.toml");
  for (const char* flag : {"--iters 1000000", "--warmup 20000"}) {
    ExpectRefusedWithNothingWritten(
        std::string("tune --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --no-progress ") + flag + " --out " + out,
        "--iters and --warmup of a trial must be at most 10000", "iters.db");
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST(CliTrustV3, AGpuFileWithRatesNoGpuHasIsRefused) {
  const std::string dir = TempPath("gpu_rates");
  fs::create_directories(dir);
  for (const char* bad : {"1e-300", "1e300"}) {
    SCOPED_TRACE(bad);
    const std::string gpu = dir + "/tiny.toml";
    std::ofstream(gpu) << "name = \"tiny\"\nsm_count = 132\ntflops_bf16 = " << bad
                       << "\ntflops_fp16 = 989\ntflops_fp32 = 67\nhbm_gbs = 3350\nhbm_efficiency = 0.8\n"
                          "tile_m = 128\ntile_n = 128\nefficiency_bf16 = 0.8\nefficiency_fp16 = 0.8\n"
                          "efficiency_fp32 = 0.7\nlaunch_us = 2.0\nevent_wait_us = 1.0\ncopy_engines = 2\n"
                          "source = \"a test\"\n";
    const std::string topo = dir + "/t.toml";
    std::ofstream(topo) << "name = \"t\"\ngpu = \"" << gpu
                        << "\"\ngpus_per_node = 8\nnodes = 1\n[intra]\nkind = \"nvlink\"\nbandwidth_gbs = 450\n"
                           "latency_us = 2\nsource = \"a test\"\n";
    ExpectRefusedWithNothingWritten("run --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 8 --algo ring --topology " + topo,
                                    "tflops_bf16 must be a number from 0.1 to 100000", "rates.db");
  }
}

TEST(CliTrustV3, MessagesStayOneLineWhateverThePathHolds) {
  // A newline in a path is escaped; a very long one is cut in the middle.
  Outcome o = Braid("report --db \"$(printf '/nonexistent/a\\nb')/x.db\"");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("a\\nb"));
  const std::string long_name = "/nonexistent/" + std::string(5000, 'x') + ".db";
  o = Braid("report --db " + long_name);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1);
  EXPECT_LT(o.err.size(), 2100u);
  EXPECT_THAT(o.err, HasSubstr("bytes cut ..."));
}

TEST(CliTrustV3, ALockFileSymlinkIsNotFollowed) {
  // tune --out merges under "<out>.lock": a dangling symlink there must not
  // make it create the file the link names.
  const std::string dir = TempPath("lock_link");
  fs::create_directories(dir);
  const std::string out = dir + "/presets.toml", victim = dir + "/victim";
  fs::create_symlink(victim, out + ".lock");
  const Outcome o = Braid("tune --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --db " + dir + "/t.db --out " + out +
                          " --no-progress");
  // Refused before anything is measured or stored (it measured a whole
  // session first, then kept its trials in a new store).
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("is a symlink: refusing to follow it"));
  EXPECT_THAT(o.err, ::testing::Not(HasSubstr("trials")));
  EXPECT_FALSE(fs::exists(victim));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir + "/t.db"));
  // A lock path that is a folder is refused as early.
  fs::remove(out + ".lock");
  fs::create_directories(out + ".lock");
  const Outcome folder = Braid("tune --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --db " + dir + "/t.db --out " +
                               out + " --no-progress");
  EXPECT_EQ(folder.code, 2);
  EXPECT_THAT(folder.err, HasSubstr("is not a regular file"));
  EXPECT_FALSE(fs::exists(dir + "/t.db"));
}

TEST(CliTrustV3, AFolderNameThatIsNotUtf8IsImported) {
  // Kineto job folders are named by users: bytes that are not UTF-8 are
  // stored and printed with replacement characters, never an internal error.
  const std::string dir = TempPath(std::string("job_\xff\xfe"));
  fs::create_directories(dir);
  std::ofstream(dir + "/rank0.json") << R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "gemm", "ts": 1,)"
                                     << R"( "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1}}]})";
  const std::string db = TempPath("utf8.db");
  fs::remove(db);
  Outcome o = Braid("import kineto '" + dir + "' --db " + db + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(nlohmann::json::accept(o.out));
  o = Braid("report --db " + db + " --run 1 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("job_\xEF\xBF\xBD\xEF\xBF\xBD"));  // U+FFFD twice
}

TEST(CliTrustV3, ARunKilledPartWayLeavesNoStoreItCreated) {
  // SIGTERM (and Ctrl-C, a hang-up) while the run streams into a new store:
  // the store goes; one that was there keeps its runs.
  const std::string db = TempPath("killed_run.db");
  fs::remove(db);
  const std::string run = "run --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --iters 1000000 --db " + db;
  auto killed = [&](const char* sig) {
    return Braid(run + " & pid=$!; sleep 1; kill -" + std::string(sig) + " $pid; wait $pid; echo \"status $?\"");
  };
  // (SIGINT takes the same path; a shell's background job ignores it, so it
  // cannot be sent this way.)
  for (const char* sig : {"TERM", "HUP"}) {
    SCOPED_TRACE(sig);
    const Outcome o = killed(sig);
    EXPECT_THAT(o.out, HasSubstr("status 1"));  // 128 + the signal: killed by it, as without the guard
    EXPECT_FALSE(fs::exists(db));
    EXPECT_FALSE(fs::exists(db + "-wal"));
  }
  ASSERT_EQ(Braid("run --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --db " + db).code, 0);
  (void)killed("TERM");
  ASSERT_TRUE(fs::exists(db));
  const Outcome listed = Braid("report --db " + db + " --json");
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out)["runs"].size(), 1u);
}

}  // namespace
}  // namespace braid
