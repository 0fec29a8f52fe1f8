// Pieces both importers use to turn a trace's records into an ImportedRank:
// the time range we accept, ProfilerStep iterations, final event order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "braid/event.h"

namespace braid::importers {

// Timestamps beyond ±4e18 ns (±127 years) are rejected, so that spans and
// sums of durations cannot overflow int64.
inline constexpr int64_t kMaxAbsNs = 4'000'000'000'000'000'000;
inline constexpr double kMaxAbsUs = 4e15;

inline bool NsInRange(int64_t t) { return t >= -kMaxAbsNs && t <= kMaxAbsNs; }

// Maps a time to the index of the ProfilerStep range it falls in: step i
// covers [start_i, start_{i+1}); times before the first step count as 0.
class StepIndex {
 public:
  void Add(int64_t start_ns) { starts_.push_back(start_ns); }
  void Finish() {
    std::sort(starts_.begin(), starts_.end());
    starts_.erase(std::unique(starts_.begin(), starts_.end()), starts_.end());
  }
  int IterationAt(int64_t t) const {
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), t);
    return it == starts_.begin() ? 0 : static_cast<int>(it - starts_.begin()) - 1;
  }

 private:
  std::vector<int64_t> starts_;
};

inline void SortEvents(std::vector<Event>* events) {
  std::stable_sort(events->begin(), events->end(), [](const Event& a, const Event& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.lane != b.lane) return a.lane < b.lane;
    return a.end_ns < b.end_ns;
  });
}

}  // namespace braid::importers
