// How ranks exchange bytes. The in-process CpuTransport implements it for
// ranks that are threads; an MPI transport can implement it for processes.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/status.h"

namespace braid {

// The in-place sends one thread started and has not settled yet. Filled by
// SendInPlace, emptied by Settle; owned by that thread (not shared).
struct PendingSends {
  std::vector<uint64_t> tickets;  // the transport's names for them
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends `count` floats from src_rank to dst_rank under `tag`. May return
  // before the receiver has them (eager); the caller may reuse `data` at once.
  virtual Status Send(int src_rank, int dst_rank, uint64_t tag, const float* data, int64_t count) = 0;
  // Blocks until the message (src_rank → dst_rank, tag) arrives and copies it
  // into `data`. A message of another size is an error.
  virtual Status Recv(int dst_rank, int src_rank, uint64_t tag, float* data, int64_t count) = 0;
  // Starts sending `count` floats straight from `data`, without a copy: the
  // caller must not write `data` until Settle(pending) has returned. Use it
  // when the source stays unchanged until a point where waiting for the
  // receiver cannot deadlock (the end of a ring step, the end of an
  // iteration). The default copies (Send), leaving nothing pending.
  virtual Status SendInPlace(int src_rank, int dst_rank, uint64_t tag, const float* data, int64_t count,
                             PendingSends& pending) {
    (void)pending;
    return Send(src_rank, dst_rank, tag, data, count);
  }
  // Waits until every send in `pending` has been taken by its receiver (or
  // fails after the transport's timeout), then empties `pending`.
  virtual Status Settle(PendingSends& pending) {
    pending.tickets.clear();
    return Status::Ok();
  }
  // Makes every blocked and later Send / Recv return an error (a run failed).
  virtual void Abort() = 0;
};

}  // namespace braid
