#include "lane_wait.h"

#include <algorithm>
#include <cstdio>

namespace braid::cpu {

std::string DescribeStep(const Step& s) {
  std::string d = "step " + std::to_string(s.id) + " '" + s.name + "' (" + std::string(StepKindName(s.kind));
  const std::string match = ", match " + std::to_string(s.match);
  switch (s.kind) {
    case StepKind::kRecv:
      d += " from rank " + std::to_string(s.peer) + match;
      break;
    case StepKind::kSend:
      d += " to rank " + std::to_string(s.peer) + match;
      break;
    case StepKind::kCollective:
      d += " " + std::string(CollectiveName(s.collective)) + " over the ring" + match;
      break;
    default:
      break;
  }
  return d + ")";
}

std::string TimedOutMessage(const std::vector<LaneWait::Snapshot>& lanes, double timeout_s, int warmup, int iters) {
  int it = -1;
  for (const LaneWait::Snapshot& l : lanes) it = std::max(it, l.iteration);
  char head[160];
  std::snprintf(head, sizeof head, "cpu: timed out after %g s (--timeout) ", timeout_s);
  std::string msg = head;
  if (it < 0) {
    msg += "before the first iteration";
  } else if (it < warmup) {
    msg += "in iteration " + std::to_string(it) + " (warm-up " + std::to_string(it + 1) + " of " +
           std::to_string(warmup) + ")";
  } else {
    msg += "in iteration " + std::to_string(it) + " (timed " + std::to_string(it - warmup + 1) + " of " +
           std::to_string(iters) + ")";
  }
  std::string waiting, at_barrier;
  for (const LaneWait::Snapshot& l : lanes) {
    if (l.done) continue;
    if (l.at_barrier) {
      at_barrier += (at_barrier.empty() ? "" : ", ") + l.who;
    } else {
      waiting += (waiting.empty() ? "" : "; ") + l.who + " " + l.what;
    }
  }
  if (!waiting.empty()) msg += ": " + waiting;
  if (!at_barrier.empty())
    msg += (waiting.empty() ? ": " : "; ") + std::string("at the iteration barrier: ") + at_barrier;
  return msg;
}

LaneWait::LaneWait(int rank, int lane, const Lane& info, const std::vector<Step>* rank_steps)
    : rank_(rank), lane_(lane), info_(info), rank_steps_(rank_steps) {}

void LaneWait::AtBarrier(int iteration) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = Phase::kBarrier;
  iteration_ = iteration;
}

void LaneWait::ForDep(int dep, int iteration) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = Phase::kDep;
  dep_ = dep;
  iteration_ = iteration;
}

void LaneWait::InStep(const Step& s, int iteration) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = Phase::kStep;
  step_ = &s;
  iteration_ = iteration;
}

void LaneWait::Settling(const Step& s, size_t i, size_t n, int iteration) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = Phase::kSettle;
  step_ = &s;
  settle_i_ = i;
  settle_n_ = n;
  iteration_ = iteration;
}

void LaneWait::Done() {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = Phase::kDone;
}

LaneWait::Snapshot LaneWait::Read() const {
  std::lock_guard<std::mutex> lock(mu_);
  Snapshot s;
  s.iteration = iteration_;
  s.who = "rank " + std::to_string(rank_) + " lane " + std::to_string(lane_) + " (" + info_.name + ")";
  switch (phase_) {
    case Phase::kStarting:
      s.what = "has not reached the first iteration";
      break;
    case Phase::kBarrier:
      s.at_barrier = true;
      break;
    case Phase::kDep: {
      const bool known = dep_ >= 0 && size_t(dep_) < rank_steps_->size();
      s.what = "waits for " + (known ? DescribeStep((*rank_steps_)[size_t(dep_)]) : "step " + std::to_string(dep_));
      if (known) s.what += " on lane " + std::to_string((*rank_steps_)[size_t(dep_)].lane);
      break;
    }
    case Phase::kStep: {
      const StepKind k = step_->kind;
      const bool comm = k == StepKind::kRecv || k == StepKind::kSend || k == StepKind::kCollective;
      s.what = (comm ? "waits in " : "runs ") + DescribeStep(*step_);
      break;
    }
    case Phase::kSettle:
      s.what = "settles in-place send " + std::to_string(settle_i_ + 1) + " of " + std::to_string(settle_n_) +
               " (not yet received): " + DescribeStep(*step_);
      break;
    case Phase::kDone:
      s.done = true;
      break;
  }
  return s;
}

}  // namespace braid::cpu
