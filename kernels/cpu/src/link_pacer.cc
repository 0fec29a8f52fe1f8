#include "braid/link_pacer.h"

#include <algorithm>
#include <cmath>

namespace braid {

namespace {

// Nanoseconds, capped at ~30 years so absurd inputs cannot overflow.
std::chrono::nanoseconds Ns(double ns) { return std::chrono::nanoseconds(std::llround(std::clamp(ns, 0.0, 1e18))); }

}  // namespace

LinkPacer::LinkPacer(int ranks, double gbps, double latency_us)
    : ranks_(ranks), gbps_(gbps), latency_(Ns(latency_us * 1e3)), busy_until_(size_t(ranks) * size_t(ranks)) {}

LinkPacer::Slot LinkPacer::Reserve(int src, int dst, int64_t bytes, Clock::time_point now) {
  if (!enabled()) return {now, now, now};
  // bytes·8 / (gbps·1e9) seconds = bytes·8 / gbps nanoseconds
  const auto busy = Ns(double(bytes) * 8.0 / gbps_);
  Slot slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Clock::time_point& until = busy_until_[size_t(src) * size_t(ranks_) + size_t(dst)];
    slot.start = std::max(now, until);
    slot.finish = slot.start + busy;
    until = slot.finish;
    booked_ += bytes;
  }
  slot.visible = slot.finish + latency_;
  return slot;
}

int64_t LinkPacer::booked_bytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return booked_;
}

}  // namespace braid
