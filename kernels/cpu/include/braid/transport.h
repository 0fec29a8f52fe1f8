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
  // Byte messages: as Send / Recv, for `bytes` raw bytes (an encoded wire
  // format such as FP8's, fp8_wire.h). Eager like Send; Recv's size rule and
  // the timeouts and Abort hold alike. Receive a message the way it was sent
  // (the in-process transport refuses a float message to RecvBytes and a
  // byte one to Recv). Link emulation charges exactly `bytes`. The default
  // refuses.
  virtual Status SendBytes(int src_rank, int dst_rank, uint64_t tag, const uint8_t* data, int64_t bytes) {
    (void)src_rank, (void)dst_rank, (void)tag, (void)data, (void)bytes;
    return Status::Internal("transport: this transport cannot send byte messages");
  }
  virtual Status RecvBytes(int dst_rank, int src_rank, uint64_t tag, uint8_t* data, int64_t bytes) {
    (void)dst_rank, (void)src_rank, (void)tag, (void)data, (void)bytes;
    return Status::Internal("transport: this transport cannot receive byte messages");
  }
  // Makes every blocked and later Send / Recv return an error (a run failed).
  virtual void Abort() = 0;
  // True when an in-place send was left unsettled (a failed run): the
  // transport below may still read the caller's `data` after this object
  // is gone, so the caller must keep that memory until the process ends
  // (which then ends through the launcher's abort). In-process transports
  // never leave one.
  virtual bool HoldsCallerMemory() const { return false; }
};

}  // namespace braid
