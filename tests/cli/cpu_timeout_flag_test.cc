// --timeout on the cpu backend with ranks as threads: checked like every
// flag (one line, exit 2, nothing written), and it reaches the backend's
// watchdog (a paced link slower than the bound ends the run with its message).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace cpu_timeout_flag_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;

const std::string kRun = "run --backend cpu --op ag_gemm --m 64 --n 32 --k 64 --tp 2 --algo ring --iters 2 --warmup 1 ";
const std::string kTune = "tune --backend cpu --op ag_gemm --m 64 --n 32 --k 64 --tp 2 --iters 1 --warmup 0 ";

void ExpectRefused(const Outcome& o, const std::string& message) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr(message));
  EXPECT_THAT(o.err, StartsWith("braid"));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
  EXPECT_EQ(o.out, "") << "nothing written on bad input";
}

TEST(CliCpuTimeout, BadValuesAreOneLineAndExitTwoBeforeAnythingIsWritten) {
  const std::string db = TempPath("cpu_timeout_bad.db");
  const std::string out = TempPath("cpu_timeout_bad.toml");
  for (const std::string t : {"0", "-1", "nan", "inf", "-0.5"}) {
    SCOPED_TRACE("--timeout " + t);
    ExpectRefused(Braid(kRun + "--timeout " + t + " --db " + db), "--timeout must be a positive number of seconds");
    ExpectRefused(Braid(kTune + "--timeout " + t + " --no-progress --db " + db + " --out " + out),
                  "--timeout must be a positive number of seconds");
    EXPECT_FALSE(std::filesystem::exists(db));
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST(CliCpuTimeout, CpuTakesTimeoutButNotTheCudaOnlyFlags) {
  const Outcome ok = Braid(kRun + "--timeout 600 --verify --no-db --json");
  EXPECT_EQ(ok.code, 0) << ok.err;
  ExpectRefused(Braid(kRun + "--loopback --no-db"), "--loopback applies to the cuda and sim backends only");
  ExpectRefused(Braid(kRun + "--tf32 --no-db"), "--tf32 applies to the cuda backend only");
  ExpectRefused(Braid(kRun + "--fused-engine core --no-db"), "--fused-engine applies to the cuda backend only");
  ExpectRefused(Braid(kRun + "--fused-engine cutlass --no-db"),
                "unknown --fused-engine 'cutlass' (known: tasks, core)");
  // Any value on sim, the cuda default (60) included; tune writes no store.
  const std::string db = TempPath("sim_timeout.db");
  for (const std::string t : {"5", "60"}) {
    ExpectRefused(
        Braid("run --backend sim --op ag_gemm --m 64 --n 32 --k 64 --tp 2 --algo ring --timeout " + t + " --no-db"),
        "--timeout applies to the cpu and cuda backends only");
    ExpectRefused(Braid("tune --backend sim --op ag_gemm --m 64 --n 32 --k 64 --tp 2 --no-progress --db " + db +
                        " --timeout " + t + " --out " + TempPath("sim_timeout.toml")),
                  "--timeout applies to the cpu and cuda backends only");
    EXPECT_FALSE(std::filesystem::exists(db));
  }
}

// Each iteration waits at least 0.5 s for a paced message (the link's
// latency), ten times the bound: the watchdog must end the run.
TEST(CliCpuTimeout, AnIterationOverTheBoundFailsTheRunNamingTheWait) {
  const Outcome o = Braid(kRun + "--link-gbps 100 --link-latency-us 500000 --timeout 0.05 --no-db");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("cpu: timed out after 0.05 s (--timeout) in iteration 0 (warm-up 1 of 1): ")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("(recv from rank ")) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
  // Without the bound (the default 300 s) the same slow run completes.
  const Outcome slow = Braid(kRun + "--link-gbps 100 --link-latency-us 500000 --iters 1 --warmup 0 --no-db");
  EXPECT_EQ(slow.code, 0) << slow.err;
}

// The store is opened before the run (its events go in as they come): a run
// that fails leaves no run behind, and no store where there was none.
TEST(CliCpuTimeout, AFailedRunLeavesNoStoreItCreatedAndNoRunInOneThatWasThere) {
  const std::string db = TempPath("timeout_new.db");
  std::filesystem::remove(db);
  const std::string slow = "--link-gbps 100 --link-latency-us 500000 --timeout 0.05 --db ";
  EXPECT_EQ(Braid(kRun + slow + db).code, 1);
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  EXPECT_EQ(Braid(kRun + slow + db).code, 1);
  const Outcome listed = Braid("report --db " + db + " --run 2");
  EXPECT_EQ(listed.code, 2) << listed.err;  // no run 2
  EXPECT_EQ(Braid("report --db " + db + " --run 1").code, 0);
}

}  // namespace
}  // namespace cpu_timeout_flag_test
