// End-to-end tests of the store commands: `run --db`, `report`, `export`,
// `import`, with the real binary, real SQLite files and the shared traces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli_runner.h"
#include "shared_dir.h"

namespace {

using braid::testing_cli::Braid;
using braid::testing_cli::Outcome;
using braid::testing_cli::TempPath;
using nlohmann::json;
using ::testing::HasSubstr;

const std::string kRun =
    "run --backend cpu --op gemm_rs --m 64 --n 32 --k 64 --tp 4 --algo ring --chunks 2 --iters 3 --warmup 1 ";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ExpectUsageError(const Outcome& o, const std::string& message) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr(message));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.out, "");
}

int RunCount(const std::string& db) {
  const Outcome o = Braid("report --json --db " + db);
  EXPECT_EQ(o.code, 0) << o.err;
  return o.code == 0 ? int(json::parse(o.out)["runs"].size()) : -1;
}

TEST(CliStore, RunIsStoredAndReportShowsTheSameMetrics) {
  const std::string db = TempPath("run.db");
  const Outcome run = Braid(kRun + "--json --verify --db " + db);
  ASSERT_EQ(run.code, 0) << run.err;
  const json measured = json::parse(run.out);
  ASSERT_TRUE(measured["run"].is_number());

  const Outcome list = Braid("report --json --db " + db);
  ASSERT_EQ(list.code, 0) << list.err;
  const json runs = json::parse(list.out)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["run"], measured["run"]);
  EXPECT_EQ(runs[0]["backend"], "cpu");
  EXPECT_EQ(runs[0]["status"], "complete");

  const Outcome one = Braid("report --json --db " + db + " --run " + measured["run"].dump());
  ASSERT_EQ(one.code, 0) << one.err;
  const json stored = json::parse(one.out);
  EXPECT_EQ(stored["workload"], measured["workload"]);
  EXPECT_EQ(stored["config"], measured["config"]);
  EXPECT_EQ(stored["verify"], measured["verify"]);
  EXPECT_EQ(stored["ranks"].size(), 4u);
  for (const auto& [name, m] : measured["metrics"].items()) {
    EXPECT_DOUBLE_EQ(stored["metrics"][name]["p50"].get<double>(), m["p50"].get<double>()) << name;
    EXPECT_DOUBLE_EQ(stored["metrics"][name]["p99"].get<double>(), m["p99"].get<double>()) << name;
  }
  const Outcome table = Braid("report --db " + db + " --run 1");
  EXPECT_THAT(table.out, HasSubstr("exposed_comm"));
}

TEST(CliStore, ExportWritesAPerfettoTraceWithNamedLanesAndFlows) {
  const std::string db = TempPath("export.db"), out = TempPath("trace.json");
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  const Outcome o = Braid("export --db " + db + " --run 1 --format chrome -o " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  const json trace = json::parse(ReadFile(out));
  std::map<std::string, int> meta;
  int slices = 0;
  std::map<int64_t, int> flow_ends;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") meta[e["name"].get<std::string>()]++;
    if (ph == "X") {
      ++slices;
      ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("pid") && e.contains("tid"));
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    if (ph == "s" || ph == "f") flow_ends[e["id"].get<int64_t>()] += ph == "s" ? 1 : 10;
  }
  EXPECT_EQ(meta["process_name"], 4);
  EXPECT_EQ(meta["thread_name"], 4 * 2);  // compute + one comm lane per rank
  EXPECT_GT(slices, 0);
  // Ring gemm_rs at P=4 with 2 sub-chunks: 3 steps × 2 sends per rank × 4 ranks × 3 iterations.
  EXPECT_EQ(flow_ends.size(), size_t(3 * 2 * 4 * 3));
  for (const auto& [id, ends] : flow_ends) EXPECT_EQ(ends, 11) << "flow " << id << " needs one start and one end";
}

std::string GunzipFile(const std::string& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  gzclose(f);
  return out;
}

// The streamed export: gzip or not, to a file or standard output, the same
// trace; one iteration keeps that iteration's slices only.
TEST(CliStore, ExportStreamsTheSameTraceToEveryKindOfOutput) {
  const std::string db = TempPath("export_stream.db"), plain = TempPath("stream.json"), gz = TempPath("stream.json.gz");
  std::filesystem::remove(db);
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  ASSERT_EQ(Braid("export --db " + db + " --run 1 -o " + plain).code, 0);
  const Outcome z = Braid("export --db " + db + " --run 1 -o " + gz);
  ASSERT_EQ(z.code, 0) << z.err;
  const Outcome piped = Braid("export --db " + db + " --run 1 -o -");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(GunzipFile(gz), ReadFile(plain));
  EXPECT_EQ(piped.out, ReadFile(plain));
  const json whole = json::parse(ReadFile(plain));
  const std::string one = TempPath("stream_it1.json");
  ASSERT_EQ(Braid("export --db " + db + " --run 1 --iteration 1 -o " + one).code, 0);
  size_t in_one = 0, in_whole = 0;
  const json part = json::parse(ReadFile(one));
  for (const auto& e : part["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++in_one;
    EXPECT_EQ(e["args"]["iteration"], 1);
  }
  for (const auto& e : whole["traceEvents"]) in_whole += e["ph"] == "X";
  EXPECT_EQ(in_one * 3, in_whole);  // three timed iterations alike
  ExpectUsageError(Braid("export --db " + db + " --run 1 --iteration 7 -o " + one), "iterations 0..2");
}

// Damage found half way through the stream (the rows end before the run's
// count says): one line, exit 2, the old output kept and no temporary left.
TEST(CliStore, AnExportThatFailsHalfWayKeepsTheOldFile) {
  const std::string db = TempPath("export_half.db");
  const std::filesystem::path dir = std::filesystem::path(TempPath("export_half_out"));
  std::filesystem::remove(db);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  const std::string out = (dir / "trace.json").string();
  std::ofstream(out) << "the previous export";
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "DELETE FROM events WHERE rank = 3", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  for (const std::string& name : {out, out + ".gz"}) {
    ExpectUsageError(Braid("export --db " + db + " --run 1 -o " + name), "damaged store: run 1");
  }
  EXPECT_EQ(ReadFile(out), "the previous export");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(CliStore, BadStoreInputIsOneLineExitTwoAndChangesNothing) {
  const std::string db = TempPath("bad.db");
  ExpectUsageError(Braid("report --db " + TempPath("missing.db")), "no store at");
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  ExpectUsageError(Braid("report --db " + db + " --run 999"), "999");
  ExpectUsageError(Braid("export --db " + db + " --run 1 -o /nonexistent/dir/t.json"),
                   "cannot write '/nonexistent/dir/t.json'");
  ExpectUsageError(Braid("export --db " + db + " --run 1 --format pprof -o x.json"), "unknown --format 'pprof'");
  ExpectUsageError(Braid(kRun + "--db /nonexistent/dir/x.db"), "directory '/nonexistent/dir' does not exist");
  EXPECT_FALSE(std::filesystem::exists("/nonexistent/dir"));

  // A file that is not a store is refused before running, and left as it was.
  const std::string junk = TempPath("junk.db");
  std::ofstream(junk) << "not a database at all, just text that must survive";
  const std::string before = ReadFile(junk);
  const Outcome o = Braid(kRun + "--db " + junk);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(ReadFile(junk), before);
  EXPECT_EQ(Braid("report --db " + junk).code, 2);
}

TEST(CliStore, NewerSchemaIsRefused) {
  const std::string db = TempPath("newer.db");
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  ExpectUsageError(Braid("report --db " + db), "newer");
  ExpectUsageError(Braid(kRun + "--db " + db), "newer");
}

// A run's stored event count is never trusted as a size: -1 or 2^40 (which
// ended in std::length_error / bad_alloc) is one line naming the store.
TEST(CliStore, ADamagedEventCountIsOneLineNotACrash) {
  for (const char* count : {"-1", "1099511627776", "3"}) {
    const std::string db = TempPath(std::string("bad_count_") + count + ".db");
    std::filesystem::remove(db);
    ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    const std::string sql = std::string("UPDATE runs SET event_count = ") + count;
    ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
    const std::string out = TempPath("bad_count.json");
    ExpectUsageError(Braid("export --db " + db + " --run 1 -o " + out), "damaged store: run 1");
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST(CliStore, ImportOfCorruptTracesLeavesNoRun) {
  const std::string db = TempPath("import_bad.db");
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  const std::string gz = TempPath("broken.json.gz");
  // A gzip header (10 bytes, NULs inside: hence the explicit length) and no deflate stream.
  constexpr char kBrokenGzip[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage";
  std::ofstream(gz, std::ios::binary) << std::string(kBrokenGzip, sizeof kBrokenGzip - 1);
  ExpectUsageError(Braid("import kineto " + gz + " --db " + db), gz);
  const std::string notjson = TempPath("notatrace.json");
  std::ofstream(notjson) << R"({"hello": [1, 2, 3]})";
  ExpectUsageError(Braid("import kineto " + notjson + " --db " + db), notjson);
  ExpectUsageError(Braid("import nsys " + db + " --db " + db), "");  // a Braid store is not an nsys export
  ExpectUsageError(Braid("import perfetto x.json --db " + db), "unknown trace format 'perfetto'");
  EXPECT_EQ(RunCount(db), 1);
}

// Rank `rank` of a `world`-rank Kineto job, or a file that is not JSON.
std::string RankTrace(int rank, int world) {
  const std::string r = std::to_string(rank);
  return R"J({"distributedInfo": {"rank": )J" + r + R"J(, "world_size": )J" + std::to_string(world) +
         R"J(}, "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 100, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "void gemm()", "ts": 110, "dur": )J" +
         std::to_string(20 + rank) + R"J(, "args": {"stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllGather", "ts": 115, "dur": 30, "args": {"stream": 20}}]})J";
}

std::string JobDir(const std::string& name, int ranks, int bad_rank = -1, int other_world_rank = -1) {
  std::string dir = TempPath(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (int r = 0; r < ranks; ++r) {
    const int world = r == other_world_rank ? ranks + 1 : ranks;
    std::ofstream(dir + "/rank" + std::to_string(r) + ".json") << (r == bad_rank ? "{not json" : RankTrace(r, world));
  }
  return dir;
}

// A job given as its directory: one run, every rank, the files it read; the
// same stored events whatever the thread count.
TEST(CliStore, ImportOfAJobDirectoryStoresEveryRankOnce) {
  const std::string dir = JobDir("job8", 8), db = TempPath("job.db");
  const Outcome o = Braid("import kineto " + dir + "/ --json --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  const json j = json::parse(o.out);
  ASSERT_EQ(j["ranks"].size(), 8u);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(j["ranks"][r]["rank"], r);
  const Outcome one = Braid("import kineto " + dir + " --threads 1 --json --db " + db);
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string a = TempPath("job_a.json"), b = TempPath("job_b.json");
  ASSERT_EQ(Braid("export --db " + db + " --run 1 -o " + a).code, 0);
  ASSERT_EQ(Braid("export --db " + db + " --run 2 -o " + b).code, 0);
  EXPECT_TRUE(json::parse(ReadFile(a))["traceEvents"] == json::parse(ReadFile(b))["traceEvents"]);
  const Outcome report = Braid("report --json --db " + db + " --run 2");
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_EQ(json::parse(report.out)["ranks"].size(), 8u);
  ExpectUsageError(Braid("import kineto " + dir + " --threads 0 --db " + db), "--threads");
}

// A bad file anywhere in the job, or files of two jobs: one line, exit 2,
// no run; a store the command would have created is not left behind, and
// an existing one keeps its runs.
TEST(CliStore, ImportOfABadJobLeavesNoRunAndNoNewStore) {
  const std::string fresh = TempPath("job_fresh.db");
  std::filesystem::remove(fresh);
  const std::string bad = JobDir("job_bad", 12, /*bad_rank=*/9);
  ExpectUsageError(Braid("import kineto " + bad + " --db " + fresh), bad + "/rank9.json: invalid JSON");
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_FALSE(std::filesystem::exists(fresh + "-wal"));

  const std::string db = TempPath("job_kept.db");
  ASSERT_EQ(Braid(kRun + "--db " + db).code, 0);
  ExpectUsageError(Braid("import kineto " + bad + " --db " + db), "rank9.json");
  const std::string mixed = JobDir("job_mixed", 6, -1, /*other_world_rank=*/4);
  ExpectUsageError(Braid("import kineto " + mixed + " --db " + db), "world_size 7, but");
  // The same rank in two files: named by its files, before the second is
  // stored (the store's own key check would only name a table).
  const std::string twice = JobDir("job_twice", 4);
  std::ofstream(twice + "/rank3.json") << RankTrace(1, 4);
  ExpectUsageError(Braid("import kineto " + twice + " --db " + db),
                   twice + "/rank3.json: rank 1 again (" + twice + "/rank1.json is rank 1 too)");
  ExpectUsageError(Braid("import kineto " + twice + " --db " + fresh), "rank 1 again");
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_EQ(RunCount(db), 1);
}

TEST(CliStore, ImportedTracesReportHtaFiguresThatMatchExpected) {
  BRAID_SKIP_WITHOUT_SHARED(braid::testing_shared::kSharedTraces);
  const std::string traces = braid::testing_shared::SharedPath(braid::testing_shared::kSharedTraces).string();
  const json expected = json::parse(ReadFile(traces + "/expected.json"));
  const std::string db = TempPath("import.db");

  const Outcome k = Braid("import kineto " + traces + "/kineto/a100_8rank_control_rank3.json.gz --json --db " + db);
  ASSERT_EQ(k.code, 0) << k.err;
  const json kj = json::parse(k.out);
  EXPECT_EQ(kj["source"], "imported");
  EXPECT_TRUE(kj["workload"].is_null());
  ASSERT_EQ(kj["ranks"].size(), 1u);
  EXPECT_EQ(kj["ranks"][0]["rank"], 3);
  const json& ke = expected["kineto/a100_8rank_control_rank3.json.gz"];
  EXPECT_NEAR(kj["ranks"][0]["hta"]["overlap_pct"].get<double>(), ke["overlap_pct"].get<double>(), 0.05);
  EXPECT_EQ(kj["ranks"][0]["hta"]["comm"], ke["comm_us"]);
  EXPECT_GT(kj["metrics"]["overlap_ratio"]["p50"].get<double>(), 0.0);

  const Outcome n = Braid("import nsys " + traces + "/nsys/h100_2gpu_mfu_before.sqlite --json --db " + db);
  ASSERT_EQ(n.code, 0) << n.err;
  const json nj = json::parse(n.out);
  ASSERT_EQ(nj["ranks"].size(), 2u);
  for (int r = 0; r < 2; ++r) {
    const json& ne = expected["nsys/h100_2gpu_mfu_before.sqlite"][std::to_string(r)];
    EXPECT_EQ(nj["ranks"][r]["hta"]["comm"], ne["comm_ns"]);
    EXPECT_NEAR(nj["ranks"][r]["hta"]["compute_pct"].get<double>(), ne["compute_pct"].get<double>(), 0.05);
  }
  // The stored copies report the same.
  const Outcome again = Braid("report --json --db " + db + " --run " + nj["run"].dump());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["ranks"][1]["hta"], nj["ranks"][1]["hta"]);
  EXPECT_EQ(RunCount(db), 2);
}

}  // namespace
