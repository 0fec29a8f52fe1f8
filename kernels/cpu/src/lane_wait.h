// What one (rank, lane) thread is doing right now, published for the run's
// watchdog: at the iteration barrier, waiting for a dep, inside a step
// (a recv waits for its sender), or settling its in-place sends. The thread
// writes it at every change; the watchdog reads it once the deadline passed,
// when a stuck thread no longer changes it. Lock-free atomics, so that the
// per-step cost is a few plain stores: a reader racing a moving thread may
// mix two moments' fields, never read a torn or dangling one.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "braid/plan.h"

namespace braid::cpu {

class LaneWait {
 public:
  // `rank_steps`: the rank's steps (deps name them by id); outlive this.
  LaneWait(int rank, int lane, const Lane& info, const std::vector<Step>* rank_steps);

  void AtBarrier(int iteration);
  void ForDep(int dep, int iteration);
  void InStep(const Step& s, int iteration);
  // Settling the send that step `s` made in place: the i-th of n.
  void Settling(const Step& s, size_t i, size_t n, int iteration);
  void Done();

  struct Snapshot {
    bool done = false;
    bool at_barrier = false;
    int iteration = -1;  // −1: before the first
    std::string who;     // "rank 1 lane 0 (compute)"
    std::string what;    // "waits for step 3 ..." (empty at the barrier)
  };
  Snapshot Read() const;

 private:
  enum class Phase { kStarting, kBarrier, kDep, kStep, kSettle, kDone };

  const int rank_;
  const int lane_;
  const Lane info_;
  const std::vector<Step>* const rank_steps_;
  // Written before phase_ (release), read after it (acquire).
  std::atomic<int> iteration_{-1};
  std::atomic<const Step*> step_{nullptr};  // kStep, kSettle: never null there
  std::atomic<int> dep_{-1};                // kDep
  std::atomic<size_t> settle_i_{0}, settle_n_{0};
  std::atomic<Phase> phase_{Phase::kStarting};
};

// The watchdog's one line: "cpu: timed out after 2 s in iteration 3 (timed
// 2 of 4): rank 1 lane 1 (comm) waits in step 7 ...; rank 0 lane 0 (compute)
// waits for step 3 ...; at the iteration barrier: rank 2 lane 0 (compute)".
// Lanes that finished are left out.
std::string TimedOutMessage(const std::vector<LaneWait::Snapshot>& lanes, double timeout_s, int warmup, int iters);

// "step 7 'rs_recv_1' (recv from rank 0, match 12)": the step and what it
// waits on in the transport (compute steps name their kind only).
std::string DescribeStep(const Step& s);

}  // namespace braid::cpu
