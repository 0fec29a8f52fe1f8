// A store a command creates is removed again unless its first run is
// committed: when the command is killed (SIGTERM, SIGINT, SIGHUP), and when
// it leaves the guard's scope any other way (a refusal, a failed run, an
// exception such as out of memory unwinding to main). A run or an import
// that does not finish leaves nothing behind. One store per process.
#pragma once

#include <string>

namespace braid::cli {

// From here until the guard is released, a terminating signal unlinks
// `path` and its -wal, -shm and -journal files, then ends the process by
// that signal as it would have (exit status 128 + signal); destroyed
// unreleased, it removes them (RemoveCreatedStore): destroy it after the
// store is closed. `created`: false when the store was there before the
// command, which then guards nothing (its earlier runs stay).
class CreatedStoreGuard {
 public:
  CreatedStoreGuard(const std::string& path, bool created);
  ~CreatedStoreGuard();
  CreatedStoreGuard(const CreatedStoreGuard&) = delete;
  CreatedStoreGuard& operator=(const CreatedStoreGuard&) = delete;

  // The store now holds a committed run: it stays.
  void Release();

 private:
  void Disarm();

  std::string path_;
  bool armed_ = false;     // removes the store unless released
  bool handlers_ = false;  // the signal handlers are installed
};

}  // namespace braid::cli
