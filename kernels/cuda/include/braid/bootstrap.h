// How the ranks of one run find each other: rank, size, broadcast, all-gather,
// barrier, abort. InProcessGroup serves ranks that are threads of one
// process; an MPI launcher can implement the same interface later.
//
// Every wait is bounded: after `timeout` or an Abort, the waiting calls
// return an error instead of blocking.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "braid/status.h"

namespace braid::cuda {

using Bytes = std::vector<uint8_t>;

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // `data` of rank `root` replaces every rank's `data`.
  virtual Status Broadcast(Bytes& data, int root) = 0;
  // Every rank's `mine`, indexed by rank (equal sizes not required).
  virtual Result<std::vector<Bytes>> AllGather(const Bytes& mine) = 0;
  virtual Status Barrier() = 0;
  // Releases every rank's current and later waits with `reason`.
  virtual void Abort(const std::string& reason) = 0;
};

// P ranks as threads: Member(r) is rank r's Bootstrap (owned by the group).
class InProcessGroup {
 public:
  InProcessGroup(int ranks, std::chrono::milliseconds timeout);
  ~InProcessGroup();
  Bootstrap& Member(int rank);
  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
  std::vector<std::unique_ptr<Bootstrap>> members_;
};

}  // namespace braid::cuda
