// The framework trace fixtures (tests/data/framework_traces, README.md
// there) for the CLI tests: where they are, and an Nsight Systems fixture
// (kept as SQL text) built into a SQLite export.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"

namespace braid::testing_cli {

inline const std::string kFrameworkFixtures = std::string(BRAID_SOURCE_DIR) + "/tests/data/framework_traces";

// nsys/<fixture>.sql as a SQLite export in a temporary file named by `tag`.
inline std::string NsysFixtureFile(const std::string& fixture, const std::string& tag = "") {
  std::ifstream in(kFrameworkFixtures + "/nsys/" + fixture + ".sql");
  std::stringstream sql;
  sql << in.rdbuf();
  std::string path = TempPath(tag + fixture + ".sqlite");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path;
}

}  // namespace braid::testing_cli
