// A Launcher whose processes are threads of this test: P of them share one
// InProcessGroup, so the cuda backend's one-rank-per-process path
// (LauncherBootstrap, agreement, gather to rank 0, clock alignment) runs
// exactly as under mpirun, minus MPI itself (tests/mpi covers that).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "braid/bootstrap.h"
#include "braid/launcher.h"

namespace braid::testing {

class ThreadLauncher : public Launcher {
 public:
  // `offsets`: what MeasureClockOffsets reports on rank 0 (empty: all zero).
  ThreadLauncher(cuda::InProcessGroup& group, int rank, int world, int ranks_per_host,
                 std::vector<ClockOffset> offsets = {})
      : group_(group), rank_(rank), world_(world), per_host_(ranks_per_host), offsets_(std::move(offsets)) {}
  int world_size() const override { return world_; }
  int rank() const override { return rank_; }
  int local_rank() const override { return rank_ % per_host_; }
  std::string host_name() const override { return "host" + std::to_string(rank_ / per_host_); }
  Status Broadcast(Blob& blob) override { return group_.Member(rank_).Broadcast(blob, 0); }
  Result<std::vector<Blob>> Gather(const Blob& blob) override {
    auto all = group_.Member(rank_).AllGather(blob);
    if (!all.ok() || rank_ == 0) return all;
    return std::vector<Blob>{};
  }
  Status Barrier() override { return group_.Member(rank_).Barrier(); }
  Result<std::vector<ClockOffset>> MeasureClockOffsets(int) override {
    BRAID_RETURN_IF_ERROR(Barrier());
    if (rank_ != 0) return std::vector<ClockOffset>{};
    if (offsets_.empty()) return std::vector<ClockOffset>(size_t(world_));
    return offsets_;
  }
  // The backend never ends the job itself (the command does); reaching here is a bug.
  [[noreturn]] void Abort(const std::string& message, int) override {
    std::fprintf(stderr, "ThreadLauncher::Abort called: %s\n", message.c_str());
    std::abort();
  }

 private:
  cuda::InProcessGroup& group_;
  int rank_, world_, per_host_;
  std::vector<ClockOffset> offsets_;
};

}  // namespace braid::testing
