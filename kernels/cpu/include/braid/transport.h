// How ranks exchange bytes. The in-process CpuTransport implements it for
// ranks that are threads; an MPI transport can implement it for processes.
#pragma once

#include <cstdint>

#include "braid/status.h"

namespace braid {

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends `count` floats from src_rank to dst_rank under `tag`. May return
  // before the receiver has them (eager); the caller may reuse `data` at once.
  virtual Status Send(int src_rank, int dst_rank, uint64_t tag, const float* data, int64_t count) = 0;
  // Blocks until the message (src_rank → dst_rank, tag) arrives and copies it
  // into `data`. A message of another size is an error.
  virtual Status Recv(int dst_rank, int src_rank, uint64_t tag, float* data, int64_t count) = 0;
  // Makes every blocked and later Send / Recv return an error (a run failed).
  virtual void Abort() = 0;
};

}  // namespace braid
