// Bounds how long one iteration of a run whose ranks are threads may take.
// A thread waits on a condition variable until the deadline; each iteration
// boundary moves the deadline on. If it passes, the watchdog fails the run
// (RunControl::Fail aborts the transport and wakes every waiter) with the
// message `describe` builds then, naming what each stuck thread waits for.
//
// Threading: Rearm may be called from any thread; Stop from the owner only.
// Stop (or the destructor) wakes the watchdog at once and joins it, so a run
// that ends normally never waits for the deadline.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "braid/status.h"
#include "run_control.h"

namespace braid::cpu {

class RunWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  // `describe` runs on the watchdog's thread once the deadline has passed.
  RunWatchdog(double timeout_s, RunControl* control, std::function<std::string()> describe);
  ~RunWatchdog();
  RunWatchdog(const RunWatchdog&) = delete;
  RunWatchdog& operator=(const RunWatchdog&) = delete;

  // Starts the thread with a deadline timeout_s from now; Internal if the
  // system cannot start one.
  Status Start();
  // The deadline becomes timeout_s from now (an iteration boundary).
  void Rearm();
  // Ends the thread (idempotent). True if the deadline had passed and the
  // watchdog failed the run.
  bool Stop();

 private:
  void Watch();

  const Clock::duration timeout_;
  RunControl* const control_;
  const std::function<std::string()> describe_;
  std::mutex mu_;
  std::condition_variable wake_;
  Clock::time_point deadline_;  // guarded by mu_
  bool stopping_ = false;       // guarded by mu_
  bool fired_ = false;          // guarded by mu_
  std::thread thread_;
};

}  // namespace braid::cpu
