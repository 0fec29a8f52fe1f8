// End-to-end helpers: run the real braid binary, capture its output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace braid::testing_cli {

struct Outcome {
  int code = -1;
  std::string out, err;
};

// Runs a shell command line, capturing its stdout and stderr.
inline Outcome RunCaptured(const std::string& command) {
  // ctest runs tests in parallel processes: each call gets its own file.
  static int calls = 0;
  const std::string err_file =
      testing::TempDir() + "braid_cli_stderr_" + std::to_string(getpid()) + "_" + std::to_string(++calls) + ".txt";
  const std::string cmd = command + " 2>" + err_file;
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::ostringstream ss;
  ss << e.rdbuf();
  o.err = ss.str();
  std::remove(err_file.c_str());
  return o;
}

inline Outcome Braid(const std::string& args) { return RunCaptured(std::string(BRAID_EXE) + " " + args); }

// A file name unique to this test process (ctest runs tests in parallel).
inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "braid_" + std::to_string(getpid()) + "_" + name;
}

// `braid ARGS --db <a fresh store>` is refused as bad input: exit 2, one
// line on stderr holding `message`, nothing on stdout, no store written.
inline void ExpectRefusedWithNothingWritten(const std::string& args, const std::string& message,
                                            const std::string& db_name = "refused.db") {
  SCOPED_TRACE(args);
  const std::string db = TempPath(db_name);
  const Outcome o = Braid(args + " --db " + db);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
  EXPECT_EQ(o.out, "");
  std::error_code ec;
  EXPECT_FALSE(std::filesystem::exists(db, ec)) << "nothing written on bad input";
}

}  // namespace braid::testing_cli
