// End-to-end helpers: run the real braid binary, capture its output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
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

}  // namespace braid::testing_cli
