// CreatedStoreGuard keeps a store only once its run is committed: a new
// store is removed when the command leaves unreleased, by a refusal or by
// an exception (out of memory unwinding to main); one that was there, or
// one released, stays.
#include "created_store_guard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "cli_runner.h"

namespace braid::cli {
namespace {

namespace fs = std::filesystem;

std::string NewStore(const std::string& name) {
  std::string path = testing_cli::TempPath(name);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::ofstream(path + suffix) << "x";
  return path;
}

TEST(CreatedStoreGuard, AnExceptionUnwindingPastItRemovesTheNewStore) {
  const std::string path = NewStore("guard_oom.db");
  try {
    CreatedStoreGuard guard(path, /*created=*/true);
    throw std::bad_alloc();
  } catch (const std::bad_alloc&) {
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(path + suffix)) << suffix;
}

TEST(CreatedStoreGuard, ARefusalReturningPastItRemovesTheNewStore) {
  const std::string path = NewStore("guard_refused.db");
  { CreatedStoreGuard guard(path, /*created=*/true); }
  EXPECT_FALSE(fs::exists(path));
}

TEST(CreatedStoreGuard, AReleasedStoreOrOneThatWasThereStays) {
  const std::string released = NewStore("guard_released.db");
  {
    CreatedStoreGuard guard(released, /*created=*/true);
    guard.Release();
  }
  EXPECT_TRUE(fs::exists(released));
  const std::string there = NewStore("guard_there.db");
  { CreatedStoreGuard guard(there, /*created=*/false); }
  EXPECT_TRUE(fs::exists(there));
}

}  // namespace
}  // namespace braid::cli
