// MPI calls as Status values, and bounded waits on MPI requests. Only for
// code built with MPI (BRAID_WITH_MPI); includes <mpi.h>.
#pragma once

#include <mpi.h>

#include <atomic>
#include <string>

#include "braid/status.h"

namespace braid {

// "MPI_Isend(...) failed at file:line: <MPI's error string>".
Status MpiError(int code, const char* call, const char* file, int line);

// Evaluates an MPI call; returns its failure as an Internal Status.
#define BRAID_MPI(call)                                                                                            \
  do {                                                                                                             \
    const int braid_mpi_rc_ = (call);                                                                              \
    if (braid_mpi_rc_ != MPI_SUCCESS) return ::braid::MpiError(braid_mpi_rc_, #call, BRAID_SOURCE_FILE, __LINE__); \
  } while (0)

enum class WaitEnd { kDone, kTimedOut, kAborted, kFailed };

struct WaitOutcome {
  WaitEnd end = WaitEnd::kDone;
  Status status;            // kFailed: MPI's error
  MPI_Status mpi_status{};  // kDone: the completed request's status
};

// Polls `request` (MPI_Test; busy for 50 µs, then yields a while, then
// sleeps with backoff up to 100 µs so that waiting ranks leave the cores to
// working ones) until it
// completes, `timeout_s` passes, or `*abort` turns true (may be null).
// `spin`: never sleep, only yield (for timing round trips).
WaitOutcome WaitBounded(MPI_Request& request, double timeout_s, const std::atomic<bool>* abort, bool spin = false);

// This process gave up a request that MPI may still progress (a timed-out
// collective, a send or receive that could not be completed or cancelled):
// its communicator and buffers are kept, and the job must end through
// MPI_Abort, never MPI_Finalize (the launcher's destructor reads this).
void MarkRequestsAbandoned();
bool RequestsAbandoned();

// Cancels `request` (a receive not matched yet goes at once) and waits up to
// `wait_s` for it to complete, cancelled or not. False when it did not: the
// caller must then treat it as abandoned (MarkRequestsAbandoned), its buffer
// still MPI's.
bool CancelAndComplete(MPI_Request& request, double wait_s);

}  // namespace braid
