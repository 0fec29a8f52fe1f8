#include "run_control.h"

#include <climits>

namespace braid::cpu {

RunControl::RunControl(size_t steps, Transport* transport)
    : steps_(steps), done_(std::make_unique<std::atomic<int>[]>(steps)), transport_(transport) {
  for (size_t i = 0; i < steps; ++i) done_[i].store(-1, std::memory_order_relaxed);
}

bool RunControl::WaitDone(size_t idx, int iter) {
  std::atomic<int>& d = done_[idx];
  int v = d.load(std::memory_order_acquire);
  while (v < iter) {
    if (aborted()) return false;
    d.wait(v, std::memory_order_acquire);
    v = d.load(std::memory_order_acquire);
  }
  return !aborted();
}

void RunControl::MarkDone(size_t idx, int iter) {
  done_[idx].store(iter, std::memory_order_release);
  done_[idx].notify_all();
}

void RunControl::Fail(const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = message;
  }
  if (aborted_.exchange(true)) return;  // someone else is already waking everyone
  if (transport_ != nullptr) transport_->Abort();
  // Any change of value wakes a waiter, which then sees aborted_.
  for (size_t i = 0; i < steps_; ++i) {
    done_[i].store(INT_MAX, std::memory_order_release);
    done_[i].notify_all();
  }
}

std::string RunControl::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace braid::cpu
