// Runs the real braid binary under mpirun and captures what it prints.
#pragma once

#include <dirent.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"

namespace braid::testing_mpi {

using Outcome = testing_cli::Outcome;

// Why MPI tests cannot run here, or "" when they can.
inline std::string MpiMissing() {
  if (std::string(BRAID_MPIRUN).empty()) return "braid was built without MPI (BRAID_WITH_MPI) or mpirun is absent";
  if (access(BRAID_MPIRUN, X_OK) != 0) return std::string(BRAID_MPIRUN) + " is not executable";
  return "";
}

#define BRAID_SKIP_WITHOUT_MPI()                                    \
  do {                                                              \
    const std::string why = ::braid::testing_mpi::MpiMissing();     \
    if (!why.empty()) GTEST_SKIP() << "MPI tests skipped: " << why; \
  } while (0)

inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "braid_mpi_" + std::to_string(getpid()) + "_" + name;
}

// `mpirun` flags for one host: as many processes as asked, whatever the core count.
inline std::string Mpirun(int np) {
  return std::string(BRAID_MPIRUN) + " --oversubscribe --allow-run-as-root -np " + std::to_string(np) + " ";
}

// Runs `command` with a shell; stderr is captured beside stdout. `timeout 120`
// keeps a broken build from hanging the suite.
inline Outcome Shell(const std::string& command) {
  // Under the asan preset: OpenMPI's process-lifetime allocations come from
  // plugins it unloads before LeakSanitizer reports (frames without a
  // module, so no suppression matches), so leak checking is off for the
  // processes mpirun starts; address and UB checks stay on.
  return testing_cli::RunCaptured("ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 timeout 120 " + command);
}

// `braid ARGS` on np processes.
inline Outcome MpiBraid(int np, const std::string& args) { return Shell(Mpirun(np) + BRAID_EXE + " " + args); }

inline Outcome Braid(const std::string& args) { return Shell(std::string(BRAID_EXE) + " " + args); }

// Lines of `text` that contain `needle`.
inline int LinesWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

// First column of the first row of `sql`, as text ("" when none or on error).
inline std::string QueryOne(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out = t ? reinterpret_cast<const char*>(t) : "";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The pid of the braid process whose command line contains `marker` and
// whose MPI rank is `rank`, or 0.
inline pid_t FindRank(const std::string& marker, int rank) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return 0;
  pid_t found = 0;
  while (dirent* e = readdir(d)) {
    const pid_t pid = pid_t(std::atoi(e->d_name));
    if (pid <= 0) continue;
    const std::string cmdline = ReadAll("/proc/" + std::string(e->d_name) + "/cmdline");
    if (cmdline.find(marker) == std::string::npos || cmdline.find("mpirun") != std::string::npos) continue;
    const std::string environ = ReadAll("/proc/" + std::string(e->d_name) + "/environ");
    if (environ.find(std::string("OMPI_COMM_WORLD_RANK=") + std::to_string(rank) + '\0') != std::string::npos) {
      found = pid;
      break;
    }
  }
  closedir(d);
  return found;
}

}  // namespace braid::testing_mpi
