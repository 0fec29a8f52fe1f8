// Pieces both importers use to turn a trace's records into an ImportedRank:
// the time range we accept, ProfilerStep iterations, final event order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "braid/budgets.h"
#include "braid/event.h"

namespace braid::importers {

// Timestamps beyond ±4e18 ns (±127 years) are rejected, so that spans and
// sums of durations cannot overflow int64.
inline constexpr int64_t kMaxAbsNs = 4'000'000'000'000'000'000;
inline constexpr double kMaxAbsUs = 4e15;

inline bool NsInRange(int64_t t) { return t >= -kMaxAbsNs && t <= kMaxAbsNs; }

// A name (kernel, range, op) as an event keeps it: at most
// kMaxEventNameBytes (braid/budgets.h); a longer one keeps its start, cut
// where no UTF-8 sequence is split, and says so.
inline std::string KeptName(std::string_view name) {
  if (name.size() <= kMaxEventNameBytes) return std::string(name);
  size_t cut = kMaxEventNameBytes - 40;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return std::string(name.substr(0, cut)) + " [... " + std::to_string(name.size() - cut) + " bytes cut]";
}

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

// Orders by (start_ns, lane, end_ns), ties as they came: a stable sort.
// The keys are sorted apart and the events then moved into place along the
// permutation's cycles, each once: a merge sort of the events themselves
// moved each ~15 times, at ~100 bytes apiece, through a buffer as large as
// they are (35 MB trace: 34,000 events, 2.2 ms -> see docs/cli.md).
inline void SortEvents(std::vector<Event>* events) {
  struct Key {
    int64_t start, end;
    int lane;
    uint32_t at;  // where the event is now; the last key, which makes the sort stable
    bool operator<(const Key& o) const {
      if (start != o.start) return start < o.start;
      if (lane != o.lane) return lane < o.lane;
      if (end != o.end) return end < o.end;
      return at < o.at;
    }
  };
  std::vector<Event>& ev = *events;
  if (ev.size() > UINT32_MAX) {  // beyond any trace kMaxTraceBytes lets in; still right
    std::stable_sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
      return Key{a.start_ns, a.end_ns, a.lane, 0} < Key{b.start_ns, b.end_ns, b.lane, 0};
    });
    return;
  }
  std::vector<Key> keys(ev.size());
  for (size_t i = 0; i < ev.size(); ++i) keys[i] = {ev[i].start_ns, ev[i].end_ns, ev[i].lane, uint32_t(i)};
  if (std::is_sorted(keys.begin(), keys.end())) return;
  std::sort(keys.begin(), keys.end());
  // keys[j].at: the event that goes to j. Each cycle is walked once.
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].at == i) continue;
    Event held = std::move(ev[i]);
    size_t j = i;
    while (keys[j].at != i) {
      const size_t from = keys[j].at;
      ev[j] = std::move(ev[from]);
      keys[j].at = uint32_t(j);
      j = from;
    }
    ev[j] = std::move(held);
    keys[j].at = uint32_t(j);
  }
}

}  // namespace braid::importers
