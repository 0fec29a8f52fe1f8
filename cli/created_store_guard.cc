#include "created_store_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "store_access.h"

namespace braid::cli {

namespace {

// What the handler unlinks: fixed buffers written before it is armed, so
// that it only reads them (unlink and raise are async-signal-safe).
constexpr size_t kMaxPath = 4096;
constexpr int kFiles = 4;
char g_files[kFiles][kMaxPath + 16];
std::atomic<bool> g_armed{false};
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction g_before[3];

void RemoveAndDie(int sig) {
  if (g_armed.exchange(false)) {
    for (char* f : g_files) ::unlink(f);
  }
  // The disposition the process had, then the signal again: the exit status
  // says it was killed, as without the guard.
  for (size_t i = 0; i < 3; ++i) {
    if (kSignals[i] == sig) ::sigaction(sig, &g_before[i], nullptr);
  }
  ::raise(sig);
}

}  // namespace

CreatedStoreGuard::CreatedStoreGuard(const std::string& path, bool created) {
  if (!created || path.empty()) return;
  path_ = path;
  armed_ = true;
  if (path.size() > kMaxPath) return;  // too long for the handler's buffers: removed on return only
  const char* suffixes[kFiles] = {"", "-wal", "-shm", "-journal"};
  for (int i = 0; i < kFiles; ++i) {
    std::memcpy(g_files[i], path.data(), path.size());
    std::strcpy(g_files[i] + path.size(), suffixes[i]);
  }
  struct sigaction sa {};
  sa.sa_handler = RemoveAndDie;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &g_before[i]);
  g_armed.store(true);
  handlers_ = true;
}

void CreatedStoreGuard::Disarm() {
  if (handlers_) {
    g_armed.store(false);
    for (size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], &g_before[i], nullptr);
    handlers_ = false;
  }
  armed_ = false;
}

void CreatedStoreGuard::Release() {
  if (armed_) Disarm();
}

CreatedStoreGuard::~CreatedStoreGuard() {
  if (!armed_) return;
  Disarm();
  try {
    RemoveCreatedStore(path_);  // never committed: nothing of it is kept
  } catch (...) {               // out of memory building a name: unwinding already; leave the file
  }
}

}  // namespace braid::cli
