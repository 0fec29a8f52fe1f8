// `braid tune` end to end: the JSON contract, preset files written and
// merged, every backend, resume after kill -9, and bad input.
#include <pty.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "braid/presets.h"
#include "cli_runner.h"

namespace braid::testing_cli {
namespace tune_command_test {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Rows of a one-integer query on a store (read-only; WAL readers do not block the writer).
int64_t Count(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 1000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

struct Files {
  std::string db, out;
  explicit Files(const std::string& tag) : db(TempPath(tag + ".db")), out(TempPath(tag + ".toml")) {
    std::filesystem::remove(db);
    std::filesystem::remove(out);
  }
  ~Files() {
    for (const std::string& p : {db, db + "-wal", db + "-shm", out}) std::filesystem::remove(p);
  }
  std::string Args() const { return " --db " + db + " --out " + out + " --no-progress"; }
};

TEST(CliTune, OneOpOnSimFollowsTheJsonContractAndWritesAPreset) {
  Files f("tune_op");
  Outcome o = Braid("tune --op gemm_rs --m 8192 --n 8192 --k 8192 --tp 8 --json" + f.Args());
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_GE(j["session"].get<int>(), 1);
  EXPECT_GT(j["trials"].get<int>(), 100) << "exhaustive over the whole space";
  EXPECT_EQ(j["strategy"], "exhaustive");
  ASSERT_EQ(j["results"].size(), 1u);
  const nlohmann::json& r = j["results"][0];
  EXPECT_EQ(r["op"], "gemm_rs");
  for (const char* key : {"config", "time_ns", "speedup_vs_serial", "speedup_vs_te_default"}) {
    EXPECT_TRUE(r.contains(key)) << key;
  }
  // Exhaustive sees serial and the TE default among its candidates: it cannot lose to them.
  EXPECT_GE(r["speedup_vs_serial"].get<double>(), 1.0);
  EXPECT_GE(r["speedup_vs_te_default"].get<double>(), 1.0);
  EXPECT_GT(r["speedup_vs_serial"].get<double>(), 1.2) << "an 8192³ reduce-scatter GEMM on 8 H100s overlaps well";
  EXPECT_EQ(r["te_default"]["algorithm"], "chunked");
  EXPECT_EQ(r["te_default"]["chunks"], 4);
  EXPECT_EQ(r["te_default"]["comm_sms"], 16);
  EXPECT_GE(r["overlap_ratio"].get<double>(), 0.0);
  EXPECT_LE(r["overlap_ratio"].get<double>(), 1.0);

  // Every trial is a run in the store, tied to the session.
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM trials WHERE run IS NOT NULL"), j["trials"].get<int64_t>());
  EXPECT_EQ(Count(f.db, "SELECT count(DISTINCT run) FROM trials"), j["trials"].get<int64_t>());
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions WHERE status = 'done'"), 1);

  Result<PresetTable> table = PresetTable::Load(f.out);
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->size(), 1u);
  const Preset& p = table->presets()[0];
  EXPECT_EQ(p.key.gpu, "h100-sxm");
  EXPECT_EQ(p.key.workload.m, 8192);
  EXPECT_EQ(p.backend, "sim");
  EXPECT_DOUBLE_EQ(p.time_ns, r["time_ns"].get<double>());
  EXPECT_EQ(table->Lookup(p.key.workload, "h100-sxm", "h100-sxm").match, PresetMatch::kExact);

  // Tuning another shape merges into the file; the same shape again replaces its entry.
  ASSERT_EQ(Braid("tune --op gemm_rs --m 4096 --n 8192 --k 8192 --tp 8" + f.Args()).code, 0);
  ASSERT_EQ(Braid("tune --op gemm_rs --m 4096 --n 8192 --k 8192 --tp 8" + f.Args()).code, 0);
  table = PresetTable::Load(f.out);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->size(), 2u);
}

// Each result carries the sim's error band of its time and of TE's default
// (docs/simulator.md, "Error bands"), and names the baselines it cannot be
// told apart from; the table says so in a line.
TEST(CliTune, ResultsCarryErrorBandsAndSayWhichBaselinesTheyCannotBeToldApartFrom) {
  Files f("tune_band");
  const std::string tune = "tune --op ag_gemm --m 4096 --n 4096 --k 4096 --tp 8" + f.Args();
  const Outcome o = Braid(tune + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json r = nlohmann::json::parse(o.out)["results"][0];
  const double t = r["time_ns"].get<double>(), band = r["error_band"].get<double>();
  EXPECT_GT(band, 0.05);  // between h100-sxm's collective (5 %) and GEMM (17 %) bands
  EXPECT_LE(band, 0.17);
  const double te = r["te_default_ns"].get<double>(), te_band = r["te_default_error_band"].get<double>();
  EXPECT_GT(te_band, 0);
  const bool te_within = std::abs(t - te) <= t * band + te * te_band;
  std::set<std::string> within;
  for (const auto& name : r["within_error_band"]) within.insert(name.get<std::string>());
  EXPECT_EQ(within.count("te_default") == 1, te_within) << r.dump();
  ASSERT_FALSE(within.empty()) << "a 7 % win is inside a 10 % band: " << r.dump();
  const Outcome text = Braid(tune);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("are within each other's error band"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("figures are simulated (sim backend), expected within ±"), std::string::npos) << text.out;
  // The preset keeps the winner's band.
  Result<PresetTable> table = PresetTable::Load(f.out);
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->size(), 1u);
  EXPECT_NEAR(table->presets()[0].error_band, band, 1e-9);
  const Outcome show = Braid("presets show --json " + f.out);
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NEAR(nlohmann::json::parse(show.out)["presets"][0]["error_band"].get<double>(), band, 1e-9);
}

TEST(CliTune, ModelTunesEveryTpGemmOfTheBlockAndPrintsATable) {
  Files f("tune_model");
  Outcome o = Braid("tune --model llama3-8b --seq 4096 --batch 1 --tp 4 --strategy guided" + f.Args());
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* op : {"qkv ", "out_proj ", "fc1 ", "fc2 "}) EXPECT_NE(o.out.find(op), std::string::npos) << op;
  for (const char* col : {"best config", "vs serial", "vs TE default", "overlap", "tail", "gemm", "gap to bound"}) {
    EXPECT_NE(o.out.find(col), std::string::npos) << col;
  }
  // Each op's row says which side bounds it and how its gap splits.
  EXPECT_NE(o.out.find(": busy "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(", idle "), std::string::npos) << o.out;
  Result<PresetTable> table = PresetTable::Load(f.out);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table->size(), 4u);
  std::set<std::string> layers;
  for (const Preset& p : table->presets()) layers.insert(p.key.layer);
  EXPECT_EQ(layers, (std::set<std::string>{"llama3-8b/qkv", "llama3-8b/out_proj", "llama3-8b/fc1", "llama3-8b/fc2"}));
}

// A training step: TE's twelve GEMMs in eight targets, the whole block
// tuned vs TE default vs serial, twelve presets keyed by pass.
TEST(CliTune, TrainPhaseTunesTheTwelveGemmsAndTheWholeBlock) {
  Files f("tune_train");
  Outcome o =
      Braid("tune --model llama3-8b --seq 4096 --batch 1 --tp 4 --phase train --strategy guided --json" + f.Args());
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["results"].size(), 8u);
  EXPECT_EQ(j["presets_written"], 12);
  std::set<std::string> gemms;
  for (const auto& r : j["results"]) {
    EXPECT_LE(r["time_ns"].get<double>(), r["serial_ns"].get<double>()) << r["op"];
    EXPECT_GT(r["efficiency"].get<double>(), 0) << r["op"];
    // Why the winner misses its bound: the winner's run's gap.
    ASSERT_TRUE(r["gap"].is_object()) << r["op"];
    EXPECT_NEAR(r["gap"]["lower_bound_ns"].get<double>(), r["lower_bound_ns"].get<double>(), 1e-6) << r["op"];
    EXPECT_NEAR(r["gap"]["stretched_ns"].get<double>() + r["gap"]["idle_ns"].get<double>(),
                r["gap"]["makespan_ns"].get<double>() - r["lower_bound_ns"].get<double>(), 1e-6)
        << r["op"];
    for (const auto& g : r["gemms"]) gemms.insert(g["op"].get<std::string>() + "/" + g["pass"].get<std::string>());
  }
  EXPECT_EQ(gemms.size(), 12u);
  EXPECT_TRUE(gemms.count("qkv.wgrad/wgrad"));
  const auto& b = j["block"];
  for (const char* k : {"tuned", "te_default", "serial"}) {
    EXPECT_GT(b[k]["time_ns"].get<double>(), 0) << k;
    EXPECT_GT(b[k]["efficiency"].get<double>(), 0) << k;
  }
  EXPECT_GT(b["speedup_vs_serial"].get<double>(), 1.0);
  Result<PresetTable> table = PresetTable::Load(f.out);
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->size(), 12u);
  std::set<std::string> keys;
  for (const Preset& p : table->presets()) keys.insert(p.key.layer + "_" + std::string(PassName(p.key.pass)));
  EXPECT_EQ(keys.size(), 12u);

  // The table names every target and the block.
  Files g("tune_train_table");
  Outcome t = Braid("tune --model llama3-8b --seq 4096 --batch 1 --tp 4 --phase train --strategy guided" + g.Args());
  ASSERT_EQ(t.code, 0) << t.err;
  for (const char* text :
       {"qkv.fprop", "fc2.backward", "qkv.wgrad", "whole block (forward + backward)", "TE default", "eff"}) {
    EXPECT_NE(t.out.find(text), std::string::npos) << text << "\n" << t.out;
  }
}

TEST(CliTune, CpuBackendMeasuresForRealWithLinkPacing) {
  Files f("tune_cpu");
  Outcome o = Braid(
      "tune --backend cpu --op ag_gemm --m 256 --n 256 --k 256 --tp 2 --strategy halving "
      "--iters 3 --warmup 1 --link-gbps 50 --json" +
      f.Args());
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["results"][0]["config"]["comm_sms"], 0) << "no SM knobs on cpu";
  EXPECT_GT(j["results"][0]["time_ns"].get<double>(), 0);
  Result<PresetTable> table = PresetTable::Load(f.out);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->presets().at(0).backend, "cpu");
}

TEST(CliTune, PipesGetPlainProgressLines) {
  Files f("tune_progress");
  Outcome o = Braid("tune --op ag_gemm --m 4096 --n 4096 --k 4096 --tp 4 --db " + f.db + " --out " + f.out);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err.find('\r'), std::string::npos) << "no redrawn bar in a pipe";
  EXPECT_NE(o.err.find("ag_gemm (1/1): "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(" trials, best "), std::string::npos) << o.err;
  EXPECT_LT(std::count(o.err.begin(), o.err.end(), '\n'), 20) << "about one line per tenth";
}

// Where the budget ends a search depends on this machine's speed, so the
// command is held only to what holds on any machine: every op gets a
// winner, and the table says which searches the clock ended. (Exactly when
// the clock ends a search is tested with a driven clock in
// tests/tuner/tune_session_test.cc.)
TEST(CliTune, TimeBudgetGivesEveryOpAWinnerOnAnyMachine) {
  Files f("tune_time");
  Outcome o = Braid("tune --model llama3-405b --seq 8192 --batch 1 --tp 8 --time-budget 0.01 --json" + f.Args());
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["results"].size(), 4u);
  int stopped = 0;
  for (const auto& r : j["results"]) {
    EXPECT_TRUE(r["stopped_by"].is_null() || r["stopped_by"] == "time") << r;
    stopped += r["stopped_by"] == "time";
    EXPECT_LT(r["trials"].get<int>(), r["candidates"].get<int>() + 2);
    EXPECT_GT(r["time_ns"].get<double>(), 0);
  }
  EXPECT_EQ(j["presets_written"], 4);
  Files g("tune_time_table");
  Outcome table = Braid("tune --model llama3-405b --seq 8192 --batch 1 --tp 8 --time-budget 0.01" + g.Args());
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("presets: 4 written"), std::string::npos) << table.out;
  (void)stopped;
}

TEST(CliTune, TerminalsGetAProgressBarRedrawnInPlace) {
  Files f("tune_tty");
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(master);
    dup2(slave, STDERR_FILENO);
    const std::string cmd = std::string(BRAID_EXE) + " tune --op ag_gemm --m 4096 --n 4096 --k 4096 --tp 4 --db " +
                            f.db + " --out " + f.out + " >/dev/null";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(slave);
  std::string err;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has gone
    err.append(buf, size_t(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << err;
  EXPECT_NE(err.find('\r'), std::string::npos) << "redrawn in place";
  EXPECT_NE(err.find("] "), std::string::npos) << err;
  EXPECT_NE(err.find(" trials  best "), std::string::npos) << err;
  EXPECT_NE(err.find("ETA"), std::string::npos) << err;
}

// Starts `braid tune`, kills it with SIGKILL once `after` trials are in the
// store, and returns how many trials it had recorded by then.
int64_t TuneAndKill(const std::string& args, const std::string& db, int64_t after) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = std::string(BRAID_EXE) + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int64_t seen = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    seen = Count(db, "SELECT count(*) FROM trials");
    if (seen >= after) break;
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return -1;  // finished before the kill
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  return Count(db, "SELECT count(*) FROM trials");
}

TEST(CliTune, ResumeAfterKillLosesNoTrialAndMeasuresNoneTwice) {
  const std::string request = "tune --model llama3-405b --seq 8192 --batch 1 --tp 8 --json";
  Files clean("tune_clean");
  Outcome full = Braid(request + clean.Args());
  ASSERT_EQ(full.code, 0) << full.err;
  const nlohmann::json reference = nlohmann::json::parse(full.out);

  Files f("tune_killed");
  const int64_t at_kill = TuneAndKill(request + f.Args(), f.db, 40);
  ASSERT_GE(at_kill, 40) << "the tune finished before it could be killed";
  ASSERT_LT(at_kill, reference["trials"].get<int64_t>());
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions WHERE status = 'running'"), 1);
  EXPECT_FALSE(std::filesystem::exists(f.out)) << "presets are written only at the end";

  Outcome resumed = Braid(request + " --resume" + f.Args());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const nlohmann::json j = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(j["session"], 1) << "the killed session continued, no new one";
  EXPECT_EQ(j["trials"], reference["trials"]) << "the same trials as an uninterrupted session";
  EXPECT_EQ(j["replayed"].get<int64_t>(), at_kill) << "every trial recorded before the kill was used";
  EXPECT_EQ(j["measured"].get<int64_t>() + at_kill, reference["trials"].get<int64_t>()) << "none measured twice";
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM trials"), reference["trials"].get<int64_t>());
  EXPECT_EQ(Count(f.db, "SELECT count(DISTINCT trial_key) FROM trials"), reference["trials"].get<int64_t>());
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM runs"), reference["trials"].get<int64_t>()) << "no orphan runs";
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions"), 1);
  ASSERT_EQ(j["results"].size(), reference["results"].size());
  for (size_t i = 0; i < j["results"].size(); ++i) {
    EXPECT_EQ(j["results"][i]["config"], reference["results"][i]["config"]);
    EXPECT_EQ(j["results"][i]["time_ns"], reference["results"][i]["time_ns"]);
  }
  // Done sessions are not resumed again.
  Outcome again = Braid(request + " --resume" + f.Args());
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("no unfinished tuning session"), std::string::npos) << again.err;
}

// Finished work is never stranded: when the preset file cannot be written
// at the end (here its folder goes away mid-tune), the session's trials stay
// stored, the message says how to have the winners, and naming the done
// session writes them from the store without measuring anything again.
TEST(CliTune, ADoneSessionWhosePresetsFailedIsWrittenFromTheStoreWithoutMeasuring) {
  const std::string request = "tune --model llama3-405b --seq 8192 --batch 1 --tp 8 --json";
  const std::string dir = TempPath("tune_stranded_dir"), moved = dir + ".moved";
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(moved);
  std::filesystem::create_directories(dir);
  Files f("tune_stranded");
  const std::string out = dir + "/presets.toml", err_file = TempPath("tune_stranded.err");
  const std::string args = request + " --db " + f.db + " --out " + out + " --no-progress";
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = "exec " + std::string(BRAID_EXE) + " " + args + " >/dev/null 2>" + err_file;
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Count(f.db, "SELECT count(*) FROM trials") < 40 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  std::filesystem::rename(dir, moved);  // the preset file's folder is gone when the session ends
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string err = ReadAll(err_file);
  std::filesystem::remove(err_file);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 2) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  EXPECT_NE(err.find("the same command with --resume --session 1 writes its presets from them"), std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions WHERE status = 'done'"), 1);
  const int64_t trials = Count(f.db, "SELECT count(*) FROM trials");

  std::filesystem::rename(moved, dir);
  Outcome again = Braid(request + " --resume --session 1 --db " + f.db + " --out " + out + " --no-progress");
  ASSERT_EQ(again.code, 0) << again.err;
  const nlohmann::json j = nlohmann::json::parse(again.out);
  EXPECT_EQ(j["session"], 1);
  EXPECT_EQ(j["measured"], 0) << "nothing measured again";
  EXPECT_EQ(j["replayed"].get<int64_t>(), j["trials"].get<int64_t>());
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM trials"), trials) << "no trial added";
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions WHERE status = 'done'"), 1);
  EXPECT_NE(ReadAll(out).find("[[preset]]"), std::string::npos) << "the presets are written";
  // Plain --resume still looks for unfinished sessions only.
  Outcome plain = Braid(request + " --resume --db " + f.db + " --out " + out + " --no-progress");
  EXPECT_EQ(plain.code, 2);
  EXPECT_NE(plain.err.find("no unfinished tuning session"), std::string::npos) << plain.err;
  std::filesystem::remove_all(dir);
}

TEST(CliTune, ResumeRefusesADamagedSessionWithOneLine) {
  Files f("tune_damaged");
  const std::string op = "tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2";
  ASSERT_EQ(Braid(op + f.Args()).code, 0);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(f.db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "UPDATE tuning_sessions SET status = 'running';"
                         "UPDATE trials SET samples_json = 'not json' WHERE id = 3;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  Outcome o = Braid(op + " --resume" + f.Args());
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("trial 3 of session 1"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("has no usable samples"), std::string::npos) << o.err;
}

TEST(CliTune, CudaBackendSaysWhyItCannotTuneAndWritesNothing) {
  Files f("tune_cuda");
  Outcome o = Braid("tune --backend cuda --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2" + f.Args());
  // No GPU here: exit 1 naming the CUDA failure (a GPU build without the backend says so with 2).
  EXPECT_TRUE(o.code == 1 || o.code == 2) << o.code;
  EXPECT_NE(o.err.find("cuda"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(f.db));
  EXPECT_FALSE(std::filesystem::exists(f.out));
}

TEST(CliTune, BadInputExitsTwoAndLeavesStoreAndPresetsUntouched) {
  Files f("tune_bad");
  // A store and a preset file that exist before.
  ASSERT_EQ(Braid("tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2" + f.Args()).code, 0);
  const std::string store_before = ReadAll(f.db);
  const std::string presets_before = ReadAll(f.out);
  const std::string op = "tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2";
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {op + " --budget 0" + f.Args(), "--budget must be at least 1 trial"},
      {op + " --strategy bayesian" + f.Args(), "unknown strategy 'bayesian'"},
      {"tune --model llama3-8b --seq 4096 --tp 1" + f.Args(), "has no TP GEMMs"},
      {"tune --model no-such-model --seq 4096 --tp 2" + f.Args(), "no-such-model"},
      {op + " --topology nowhere" + f.Args(), "nowhere"},
      {op + " --resume" + f.Args(), "no unfinished tuning session"},
      {op + " --db " + f.db + " --out " + f.db + " --no-progress", "not a Braid preset file"},
      {op + " --iters 0" + f.Args(), "--iters must be at least 1"},
      {op + " --warmup -1" + f.Args(), "--warmup must not be negative"},
      {op + " --time-budget -1" + f.Args(), "--time-budget must be a finite number of seconds, not negative"},
      {op + " --time-budget nan" + f.Args(), "--time-budget must be a finite number of seconds"},
      {op + " --time-budget inf" + f.Args(), "--time-budget must be a finite number of seconds"},
      {op + " --backend cpu --link-gbps inf" + f.Args(), "--link-gbps must be finite"},
      {op + " --backend cpu --link-gbps nan" + f.Args(), "--link-gbps must be finite"},
      {"tune --op ag_gemm --m 1023 --n 4096 --k 4096 --tp 8" + f.Args(), "M=1023 is not divisible"},
      {op + " --seed -1" + f.Args(), "--seed: must not be negative"},
      {op + " --db " + f.db + " --out - --no-progress", "--out -: tune merges its winners into a preset file"},
      {op + " --link-gbps 10" + f.Args(), "--link-gbps applies to the cpu backend only"},
      {op + " --backend cpu --link-latency-us 5" + f.Args(), "--link-latency-us needs --link-gbps"},
      {op + " --session 1" + f.Args(), "--session names the session --resume continues"},
      {op + " --resume --session 99" + f.Args(), "no tuning session 99"},
      {"tune --op gemm_rs --m 4096 --n 4096 --k 8192 --tp 2 --resume --session 1" + f.Args(), "was another request"},
      {op + " --db " + f.db + " --out /no/such/dir/p.toml --no-progress", "directory /no/such/dir does not exist"},
  };
  for (const Case& c : cases) {
    Outcome o = Braid(c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.message), std::string::npos) << c.args << "\n" << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  // Broken preset files given as --out.
  const std::string broken = TempPath("tune_broken.toml");
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"hello = 1\n", "not a Braid preset file"},
           {"format = \"braid-presets\"\nversion = 9\n", "version"},
           {"format = \"braid-presets\"\nversion = 1\n[[preset]]\ngpu = \"h100-sxm\"\n", "preset[0]"}}) {
    std::ofstream(broken) << text;
    Outcome o = Braid(op + " --db " + f.db + " --out " + broken + " --no-progress");
    EXPECT_EQ(o.code, 2) << text << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
    EXPECT_EQ(ReadAll(broken), text) << "the broken file is left as it was";
  }
  std::filesystem::remove(broken);
  EXPECT_EQ(ReadAll(f.db), store_before);
  EXPECT_EQ(ReadAll(f.out), presets_before);
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions"), 1);
  EXPECT_EQ(Count(f.db, "SELECT count(*) FROM tuning_sessions WHERE status <> 'done'"), 0) << "no interrupted session";
}

TEST(CliTune, RejectedRequestsCreateNoFiles) {
  Files f("tune_nothing");
  for (const std::string& args : {std::string("tune --op ag_gemm --m 1023 --n 4096 --k 4096 --tp 8"),
                                  std::string("tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2 --time-budget nan"),
                                  std::string("tune --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 2 --resume")}) {
    Outcome o = Braid(args + f.Args());
    EXPECT_EQ(o.code, 2) << args << o.err;
    EXPECT_FALSE(std::filesystem::exists(f.db)) << args;
    EXPECT_FALSE(std::filesystem::exists(f.out)) << args;
  }
}

}  // namespace
}  // namespace tune_command_test
}  // namespace braid::testing_cli
