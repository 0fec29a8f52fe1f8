// A store a command creates is removed again if the command is killed
// (SIGTERM, SIGINT, SIGHUP) before its first run is committed: a run or an
// import interrupted part-way leaves nothing behind, as one refused does
// (store_access.h, RemoveCreatedStore). One store per process.
#pragma once

#include <string>

namespace braid::cli {

// From here until the guard is released or destroyed, a terminating signal
// unlinks `path` and its -wal, -shm and -journal files, then ends the
// process by that signal as it would have (exit status 128 + signal).
// `created`: false when the store was there before the command, which then
// guards nothing (its earlier runs stay).
class CreatedStoreGuard {
 public:
  CreatedStoreGuard(const std::string& path, bool created);
  ~CreatedStoreGuard();
  CreatedStoreGuard(const CreatedStoreGuard&) = delete;
  CreatedStoreGuard& operator=(const CreatedStoreGuard&) = delete;

  // The store now holds a committed run: a signal leaves it.
  void Release();

 private:
  bool armed_ = false;
};

}  // namespace braid::cli
