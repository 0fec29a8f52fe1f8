#include "lane_runner.h"

#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "braid/nvtx_range.h"
#include "braid/step_event.h"

namespace braid::cpu {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void PhaseClock::operator()() noexcept {
  if (cross_process_barrier != nullptr && *cross_process_barrier && !control->aborted()) {
    try {
      if (Status s = (*cross_process_barrier)(); !s.ok()) control->Fail(s.message());
    } catch (const std::exception& e) {
      control->Fail(std::string("iteration barrier: ") + e.what());
    }
  }
  if (next < stamps->size()) (*stamps)[next++] = NowNs();
  if (watchdog != nullptr) watchdog->Rearm();
}

LaneRunner::LaneRunner(LaneJob job, StepContext ctx, RunShared shared)
    : job_(std::move(job)), ctx_(ctx), shared_(shared), wait_(job_.rank, job_.lane, job_.info, job_.rank_steps) {
  ctx_.scratch = &scratch_;
  ctx_.wire_bytes = &wire_bytes_;
  ctx_.send_in_place = &job_.send_in_place;
  ctx_.pending = &pending_;
  if (shared_.trace) events_.reserve(size_t(shared_.iters) * job_.steps.size());
}

void LaneRunner::Main() {
  bool finished = false;
  try {
    finished = Loop();
  } catch (const std::exception& e) {
    shared_.control->Fail("rank " + std::to_string(job_.rank) + " lane " + std::to_string(job_.lane) + ": " + e.what());
  } catch (...) {
    shared_.control->Fail("rank " + std::to_string(job_.rank) + ": unknown exception");
  }
  // Leaving for good lets the others' barrier phases complete without us.
  wait_.Done();
  if (!finished) shared_.barrier->arrive_and_drop();
}

bool LaneRunner::Loop() {
  wait_.AtBarrier(-1);
  shared_.barrier->arrive_and_wait();
  for (int it = 0; it < shared_.warmup + shared_.iters; ++it) {
    if (shared_.control->aborted() || !RunIteration(it)) return false;
    wait_.AtBarrier(it);
    shared_.barrier->arrive_and_wait();
  }
  return true;
}

bool LaneRunner::RunIteration(int it) {
  for (const Step* s : job_.steps) {
    for (int d : s->deps) {
      wait_.ForDep(d, it);
      if (!shared_.control->WaitDone(job_.step_base + size_t(d), it)) return false;
    }
    wait_.InStep(*s, it);
    if (!RunStep(*s, it)) return false;
    shared_.control->MarkDone(job_.step_base + size_t(s->id), it);
  }
  return SettleSends(it);
}

// Every step of the iteration has run, so each receiver is sure to come:
// waiting here cannot deadlock, and the next iteration's writers start only
// after every lane passed the barrier. One send at a time, so that a receiver
// that never comes is reported with the step that sent to it.
bool LaneRunner::SettleSends(int it) {
  bool ok = true;
  for (size_t i = 0; i < pending_.tickets.size(); ++i) {
    wait_.Settling(*pending_by_[i], i, pending_.tickets.size(), it);
    PendingSends one{{pending_.tickets[i]}};
    const Status s = ctx_.transport->Settle(one);
    if (!s.ok() && ok) shared_.control->Fail(Where(*pending_by_[i]) + ": " + s.message());
    ok = ok && s.ok();
  }
  pending_.tickets.clear();
  pending_by_.clear();
  return ok;
}

bool LaneRunner::RunStep(const Step& s, int it) {
  const int64_t start = NowNs();
  Result<int64_t> bytes = [&] {
    NvtxRange range(s.name.c_str());
    return ExecuteStep(s, ctx_);
  }();
  const int64_t end = NowNs();
  pending_by_.resize(pending_.tickets.size(), &s);
  if (!bytes.ok()) {
    shared_.control->Fail(Where(s) + ": " + bytes.status().message());
    return false;
  }
  if (shared_.trace && it >= shared_.warmup) {
    Event e = EventOfStep(s, it - shared_.warmup, job_.rank, start, end);
    e.bytes = *bytes;  // what the step really moved
    events_.push_back(std::move(e));
  }
  return true;
}

std::string LaneRunner::Where(const Step& s) const {
  return "rank " + std::to_string(job_.rank) + " lane " + std::to_string(job_.lane) + " step " + std::to_string(s.id) +
         " (" + s.name + ")";
}

}  // namespace braid::cpu
