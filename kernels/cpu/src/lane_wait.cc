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
  std::snprintf(head, sizeof head, "cpu: timed out after %g s (`timeout_s`) ", timeout_s);
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
  iteration_.store(iteration, std::memory_order_relaxed);
  phase_.store(Phase::kBarrier, std::memory_order_release);
}

void LaneWait::ForDep(int dep, int iteration) {
  dep_.store(dep, std::memory_order_relaxed);
  iteration_.store(iteration, std::memory_order_relaxed);
  phase_.store(Phase::kDep, std::memory_order_release);
}

void LaneWait::InStep(const Step& s, int iteration) {
  step_.store(&s, std::memory_order_relaxed);
  iteration_.store(iteration, std::memory_order_relaxed);
  phase_.store(Phase::kStep, std::memory_order_release);
}

void LaneWait::Settling(const Step& s, size_t i, size_t n, int iteration) {
  step_.store(&s, std::memory_order_relaxed);
  settle_i_.store(i, std::memory_order_relaxed);
  settle_n_.store(n, std::memory_order_relaxed);
  iteration_.store(iteration, std::memory_order_relaxed);
  phase_.store(Phase::kSettle, std::memory_order_release);
}

void LaneWait::Done() { phase_.store(Phase::kDone, std::memory_order_release); }

LaneWait::Snapshot LaneWait::Read() const {
  const Phase phase = phase_.load(std::memory_order_acquire);
  const Step* step = step_.load(std::memory_order_relaxed);
  const int dep = dep_.load(std::memory_order_relaxed);
  Snapshot s;
  s.iteration = iteration_.load(std::memory_order_relaxed);
  s.who = "rank " + std::to_string(rank_) + " lane " + std::to_string(lane_) + " (" + info_.name + ")";
  switch (phase) {
    case Phase::kStarting:
      s.what = "has not reached the first iteration";
      break;
    case Phase::kBarrier:
      s.at_barrier = true;
      break;
    case Phase::kDep: {
      const bool known = dep >= 0 && size_t(dep) < rank_steps_->size();
      s.what = "waits for " + (known ? DescribeStep((*rank_steps_)[size_t(dep)]) : "step " + std::to_string(dep));
      if (known) s.what += " on lane " + std::to_string((*rank_steps_)[size_t(dep)].lane);
      break;
    }
    case Phase::kStep: {
      const StepKind k = step->kind;
      const bool comm = k == StepKind::kRecv || k == StepKind::kSend || k == StepKind::kCollective;
      s.what = (comm ? "waits in " : "runs ") + DescribeStep(*step);
      break;
    }
    case Phase::kSettle:
      s.what = "settles in-place send " + std::to_string(settle_i_.load(std::memory_order_relaxed) + 1) + " of " +
               std::to_string(settle_n_.load(std::memory_order_relaxed)) +
               " (not yet received): " + DescribeStep(*step);
      break;
    case Phase::kDone:
      s.done = true;
      break;
  }
  return s;
}

}  // namespace braid::cpu
