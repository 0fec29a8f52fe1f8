#include "run_watchdog.h"

#include <system_error>
#include <utility>

#include "braid/wait_deadline.h"

namespace braid::cpu {

RunWatchdog::RunWatchdog(double timeout_s, RunControl* control, std::function<std::string()> describe)
    : timeout_(WaitBound(timeout_s)), control_(control), describe_(std::move(describe)) {}

RunWatchdog::~RunWatchdog() { Stop(); }

Status RunWatchdog::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    deadline_ = Clock::now() + timeout_;
  }
  try {
    thread_ = std::thread([this] { Watch(); });
  } catch (const std::system_error& e) {
    return Status::Internal(std::string("cannot start the cpu backend's watchdog thread: ") + e.what());
  }
  return Status::Ok();
}

void RunWatchdog::Rearm() {
  // No notify: the watchdog wakes at the old deadline anyway and then waits
  // for the new one, so an iteration boundary costs one uncontended lock.
  std::lock_guard<std::mutex> lock(mu_);
  deadline_ = Clock::now() + timeout_;
}

bool RunWatchdog::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

void RunWatchdog::Watch() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    const Clock::time_point deadline = deadline_;
    wake_.wait_until(lock, deadline, [&] { return stopping_ || deadline_ != deadline; });
    if (stopping_) return;
    if (deadline_ != deadline || Clock::now() < deadline) continue;  // rearmed (or woken early)
    fired_ = true;
    break;
  }
  lock.unlock();
  // Outside the lock: describing reads the lanes' states, and Fail wakes
  // threads that may be about to Rearm.
  control_->Fail(describe_());
}

}  // namespace braid::cpu
