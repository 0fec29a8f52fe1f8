// The body of one (rank, lane) thread: every iteration runs the lane's steps
// in plan order, each after its deps finished this iteration, settles the
// sends it made in place, then meets the other threads at the barrier.
#pragma once

#include <barrier>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "braid/event.h"
#include "braid/plan.h"
#include "lane_wait.h"
#include "run_control.h"
#include "run_watchdog.h"
#include "step_exec.h"

namespace braid::cpu {

int64_t NowNs();

// Barrier completion: meets the other processes of the job (when ranks are
// processes), then stamps the time each phase completes (phase 0 = start).
struct PhaseClock {
  std::vector<int64_t>* stamps = nullptr;  // sized before the run
  size_t next = 0;
  const std::function<Status()>* cross_process_barrier = nullptr;  // may be null or empty
  RunControl* control = nullptr;
  RunWatchdog* watchdog = nullptr;  // rearmed at every boundary; may be null
  void operator()() noexcept;
};
using IterationBarrier = std::barrier<PhaseClock>;

struct LaneJob {
  int rank = 0;
  int lane = 0;
  std::vector<const Step*> steps;                 // this lane's steps, in plan order
  size_t step_base = 0;                           // RunControl index of the rank's step 0
  std::vector<bool> send_in_place;                // the rank's, by step id (SendsInPlace)
  Lane info;                                      // the plan's lane
  const std::vector<Step>* rank_steps = nullptr;  // the rank's steps, for the watchdog's message
};

struct RunShared {
  RunControl* control = nullptr;
  IterationBarrier* barrier = nullptr;
  int warmup = 0;
  int iters = 0;
  bool trace = true;
};

class LaneRunner {
 public:
  LaneRunner(LaneJob job, StepContext ctx, RunShared shared);
  void Main();  // the thread body; never throws
  std::vector<Event>& events() { return events_; }
  const LaneWait& wait() const { return wait_; }

 private:
  bool Loop();
  bool RunIteration(int it);
  bool RunStep(const Step& s, int it);
  bool SettleSends(int it);
  std::string Where(const Step& s) const;

  LaneJob job_;
  StepContext ctx_;
  RunShared shared_;
  std::vector<float> scratch_;
  std::vector<uint8_t> wire_bytes_;      // FP8 messages are encoded and decoded here
  PendingSends pending_;                 // sends made in place this iteration
  std::vector<const Step*> pending_by_;  // the step that made each of them
  std::vector<Event> events_;
  LaneWait wait_;
};

}  // namespace braid::cpu
