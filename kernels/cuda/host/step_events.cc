#include "braid/cuda_step_events.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "braid/step_event.h"

namespace braid::cuda {

uint64_t StepCorrelation(int iteration, int rank, int step) {
  return (uint64_t(iteration + 1) << 40) | (uint64_t(rank) << 24) | uint64_t(step);
}

StepKey DecodeCorrelation(uint64_t id) { return {int(id >> 40) - 1, int((id >> 24) & 0xffff), int(id & 0xffffff)}; }

namespace {

bool HostCall(const Event& rec) { return rec.kind == EventKind::kSync || rec.kind == EventKind::kMarker; }

}  // namespace

// One event per (iteration, rank, step): the span of the GPU work tagged with
// it; of its host calls only where it has no GPU work.
std::vector<Event> StepEvents(const Plan& plan, const std::vector<Event>& records) {
  struct Span {
    Event event;
    bool from_host_calls = false;  // no GPU record seen yet
  };
  std::map<std::tuple<int, int, int>, Span> by_step;
  for (const Event& rec : records) {
    if (rec.correlation < 0) continue;
    const StepKey key = DecodeCorrelation(uint64_t(rec.correlation));
    if (key.iteration < 0 || key.rank >= plan.tp()) continue;
    const RankPlan& rp = plan.ranks[size_t(key.rank)];
    if (key.step >= int(rp.steps.size())) continue;
    auto [it, fresh] = by_step.try_emplace({key.iteration, key.rank, key.step});
    Span& span = it->second;
    const bool host = HostCall(rec);
    if (fresh || (span.from_host_calls && !host)) {  // the first record, or the first GPU record after host calls
      const Step& s = rp.steps[size_t(key.step)];
      span.event = EventOfStep(s, key.iteration, key.rank, rec.start_ns, rec.end_ns);
      if (s.match < 0) span.event.correlation = rec.correlation;  // unmatched steps keep the tracer's id
      span.from_host_calls = host;
    }
    if (host && !span.from_host_calls) continue;
    span.event.start_ns = std::min(span.event.start_ns, rec.start_ns);
    span.event.end_ns = std::max(span.event.end_ns, rec.end_ns);
  }
  std::vector<Event> events;
  events.reserve(by_step.size());
  for (auto& [key, span] : by_step) events.push_back(std::move(span.event));
  std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.iteration, x.rank, x.start_ns, x.lane) < std::tie(y.iteration, y.rank, y.start_ns, y.lane);
  });
  return events;
}

}  // namespace braid::cuda
