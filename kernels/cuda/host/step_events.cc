#include "braid/cuda_step_events.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "braid/step_event.h"
#include "braid/tile_group_events.h"

namespace braid::cuda {

uint64_t StepCorrelation(int iteration, int rank, int step) {
  return (uint64_t(iteration + 1) << 40) | (uint64_t(rank) << 24) | uint64_t(step);
}

StepKey DecodeCorrelation(uint64_t id) { return {int(id >> 40) - 1, int((id >> 24) & 0xffff), int(id & 0xffffff)}; }

namespace {

bool HostCall(const Event& rec) { return rec.kind == EventKind::kSync || rec.kind == EventKind::kMarker; }

}  // namespace

// One event per (iteration, rank, step): the span of the GPU work tagged with
// it; of its host calls only where it has no GPU work. A fused step on the
// GEMM core: its core kernel's span, and its communication apart.
std::vector<Event> StepEvents(const Plan& plan, const std::vector<Event>& records) {
  struct Span {
    Event event;
    bool from_host_calls = false;  // no GPU record seen yet
    const Event* core = nullptr;   // a fused step's GEMM core kernel record
  };
  using Key = std::tuple<int, int, int>;
  std::map<Key, Span> by_step;
  auto key_of = [&](const Event& rec) -> std::optional<Key> {
    if (rec.correlation < 0) return std::nullopt;
    const StepKey key = DecodeCorrelation(uint64_t(rec.correlation));
    if (key.iteration < 0 || key.rank >= plan.tp()) return std::nullopt;
    if (key.step >= int(plan.ranks[size_t(key.rank)].steps.size())) return std::nullopt;
    return Key{key.iteration, key.rank, key.step};
  };
  bool any_core = false;  // no core step: the second pass over the records is skipped
  for (const Event& rec : records) {
    const std::optional<Key> key = key_of(rec);
    if (!key) continue;
    const auto [iteration, rank, step] = *key;
    auto [it, fresh] = by_step.try_emplace(*key);
    Span& span = it->second;
    const bool host = HostCall(rec);
    const Step& s = plan.ranks[size_t(rank)].steps[size_t(step)];
    if (fresh || (span.from_host_calls && !host)) {  // the first record, or the first GPU record after host calls
      span.event = EventOfStep(s, iteration, rank, rec.start_ns, rec.end_ns);
      if (s.match < 0) span.event.correlation = rec.correlation;  // unmatched steps keep the tracer's id
      span.from_host_calls = host;
    }
    if (host && !span.from_host_calls) continue;
    span.event.start_ns = std::min(span.event.start_ns, rec.start_ns);
    span.event.end_ns = std::max(span.event.end_ns, rec.end_ns);
    if (s.kind == StepKind::kFused && !host && span.core == nullptr && IsCoreGemmKernel(rec.name)) {
      span.core = &rec;
      any_core = true;
    }
  }
  // A fused step on the GEMM core, as the sim draws a fused step: its GEMM
  // (the core kernel's record, compute, on the step's lane) and its
  // communication (the GPU work on the step's other stream: pulls and their
  // flags, or the owner's reduce; comm, on comm lane 1), so the metrics see
  // what overlapped. The resets on the lane before the kernel fall in neither.
  std::map<Key, Event> comm;
  if (any_core) {
    for (const Event& rec : records) {
      const std::optional<Key> key = key_of(rec);
      if (!key || HostCall(rec)) continue;
      const Span& span = by_step.at(*key);
      if (span.core == nullptr || rec.lane == span.core->lane) continue;
      auto [it, fresh] = comm.try_emplace(*key, span.event);
      Event& c = it->second;
      if (fresh) {
        c.kind = EventKind::kComm;
        c.name += "/comm";
        c.lane = plan.lanes.size() > 1 ? 1 : c.lane;
        c.flops = 0;
        c.start_ns = rec.start_ns;
        c.end_ns = rec.end_ns;
      }
      c.start_ns = std::min(c.start_ns, rec.start_ns);
      c.end_ns = std::max(c.end_ns, rec.end_ns);
    }
  }
  std::vector<Event> events;
  events.reserve(by_step.size() + comm.size());
  for (auto& [key, span] : by_step) {
    if (span.core != nullptr) {
      span.event.start_ns = span.core->start_ns;
      span.event.end_ns = span.core->end_ns;
      span.event.bytes = 0;  // its comm part carries them
    }
    events.push_back(std::move(span.event));
  }
  for (auto& [key, c] : comm) events.push_back(std::move(c));
  std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.iteration, x.rank, x.start_ns, x.lane) < std::tie(y.iteration, y.rank, y.start_ns, y.lane);
  });
  return events;
}

bool IsStepEvent(const Event& e) { return e.name.find('/') == std::string::npos; }

}  // namespace braid::cuda
