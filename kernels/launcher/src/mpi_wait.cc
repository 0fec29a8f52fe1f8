#include "braid/mpi_wait.h"

#include <chrono>
#include <thread>

#include "braid/wait_deadline.h"

namespace braid {

Status MpiError(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  return Status::Internal(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                          std::string(text, size_t(len)));
}

WaitOutcome WaitBounded(MPI_Request& request, double timeout_s, const std::atomic<bool>* abort, bool spin) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = DeadlineAfter(timeout_s);
  // Busy polling first: a reply that comes within microseconds is seen at
  // once. A yield or a sleep on a loaded host gives the core away for a
  // scheduler slice (milliseconds), which would become every short step's cost.
  const auto busy_until = Clock::now() + std::chrono::microseconds(50);
  bool busy = true;
  int yields = 0;
  WaitOutcome w;
  std::chrono::microseconds nap{1};
  for (int polls = 0;; ++polls) {
    int done = 0;
    const int rc = MPI_Test(&request, &done, &w.mpi_status);
    if (rc != MPI_SUCCESS) {
      w.end = WaitEnd::kFailed;
      w.status = MpiError(rc, "MPI_Test(request)", BRAID_SOURCE_FILE, __LINE__);
      return w;
    }
    if (done) return w;
    if (abort != nullptr && abort->load(std::memory_order_acquire)) {
      w.end = WaitEnd::kAborted;
      return w;
    }
    if ((polls & 63) == 0 && Clock::now() >= deadline) {
      w.end = WaitEnd::kTimedOut;
      return w;
    }
    if (busy) {
      busy = Clock::now() < busy_until;
      continue;
    }
    // Then yield a little, then back off.
    if (spin || yields++ < 256) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(nap);
      if (nap < std::chrono::microseconds(100)) nap *= 2;
    }
  }
}

namespace {
std::atomic<bool> g_abandoned{false};
}  // namespace

void MarkRequestsAbandoned() { g_abandoned.store(true, std::memory_order_release); }
bool RequestsAbandoned() { return g_abandoned.load(std::memory_order_acquire); }

bool CancelAndComplete(MPI_Request& request, double wait_s) {
  if (request == MPI_REQUEST_NULL) return true;
  if (MPI_Cancel(&request) != MPI_SUCCESS) return false;
  return WaitBounded(request, wait_s, nullptr).end == WaitEnd::kDone;
}

}  // namespace braid
