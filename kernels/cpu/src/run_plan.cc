#include "run_plan.h"

#include <algorithm>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>

#include "braid/nvtx_range.h"
#include "lane_runner.h"
#include "lane_wait.h"
#include "run_control.h"
#include "run_watchdog.h"
#include "send_in_place.h"

namespace braid::cpu {

namespace {

std::vector<std::unique_ptr<LaneRunner>> MakeRunners(const Plan& plan, int first, int count,
                                                     std::vector<RankMemory>& memory, Transport& transport,
                                                     const RunShared& shared, const std::vector<WireFormat>& wires) {
  std::vector<std::unique_ptr<LaneRunner>> runners;
  size_t base = 0;
  for (int r = first; r < first + count; ++r) {
    const RankPlan& rp = plan.ranks[size_t(r)];
    const std::vector<bool> in_place = SendsInPlace(rp);
    for (int lane = 0; lane < int(plan.lanes.size()); ++lane) {
      LaneJob job{r, lane, {}, base, in_place, plan.lanes[size_t(lane)], &rp.steps};
      for (const Step& s : rp.steps) {
        if (s.lane == lane) job.steps.push_back(&s);
      }
      StepContext ctx{&memory[size_t(r - first)], &transport, r, plan.tp(), nullptr};
      ctx.wires = &wires;
      runners.push_back(std::make_unique<LaneRunner>(std::move(job), ctx, shared));
    }
    base += rp.steps.size();
  }
  return runners;
}

void CollectEvents(std::vector<std::unique_ptr<LaneRunner>>& runners, std::vector<Event>& out) {
  for (auto& r : runners) {
    std::vector<Event>& ev = r->events();
    out.insert(out.end(), std::make_move_iterator(ev.begin()), std::make_move_iterator(ev.end()));
  }
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    return std::tie(a.iteration, a.rank, a.start_ns, a.lane) < std::tie(b.iteration, b.rank, b.start_ns, b.lane);
  });
}

}  // namespace

Status ExecutePlan(const Plan& plan, const RunOptions& options, std::vector<RankMemory>& memory, Transport& transport,
                   RunOutput& out, const RankRange& range, const std::vector<WireFormat>& wires) {
  const int first = range.first;
  const int count = range.count < 0 ? plan.tp() : range.count;
  if (first < 0 || count < 1 || first + count > plan.tp() || size_t(count) != memory.size()) {
    return Status::Internal("cpu backend: ranks " + std::to_string(first) + "+" + std::to_string(count) +
                            " do not fit the plan's " + std::to_string(plan.tp()));
  }
  // Also runs NVTX's lazy initialisation here, before the rank threads
  // would race on it.
  const NvtxRange run_range("braid cpu run");
  size_t steps = 0;
  for (int r = first; r < first + count; ++r) steps += plan.ranks[size_t(r)].steps.size();
  RunControl control(steps, &transport);
  std::vector<std::unique_ptr<LaneRunner>> runners;
  // Bounds each iteration rather than the run: a long run of healthy
  // iterations is fine, one iteration stuck for timeout_s is a hang.
  RunWatchdog watchdog(range.iteration_timeout_s, &control, [&] {
    std::vector<LaneWait::Snapshot> lanes;
    for (const auto& r : runners) lanes.push_back(r->wait().Read());
    return TimedOutMessage(lanes, range.iteration_timeout_s, options.warmup, options.iters);
  });
  const bool watched = range.iteration_timeout_s > 0;
  std::vector<int64_t> stamps(size_t(options.warmup + options.iters + 1), 0);
  IterationBarrier barrier(
      std::ptrdiff_t(count) * std::ptrdiff_t(plan.lanes.size()),
      PhaseClock{&stamps, 0, &range.cross_process_barrier, &control, watched ? &watchdog : nullptr});
  const RunShared shared{&control, &barrier, options.warmup, options.iters, options.trace};
  runners = MakeRunners(plan, first, count, memory, transport, shared, wires);
  if (watched) BRAID_RETURN_IF_ERROR(watchdog.Start());

  std::vector<std::thread> threads;
  threads.reserve(runners.size());
  try {
    for (auto& r : runners) {
      LaneRunner* runner = r.get();
      threads.emplace_back([runner] { runner->Main(); });
    }
  } catch (const std::system_error& e) {
    control.Fail(std::string("cannot start a rank thread: ") + e.what());
    for (size_t i = threads.size(); i < runners.size(); ++i) barrier.arrive_and_drop();
  }
  for (std::thread& t : threads) t.join();
  watchdog.Stop();
  if (control.aborted()) return Status::Internal(control.error());

  if (options.trace) CollectEvents(runners, out.events);
  for (int j = 0; j < options.iters; ++j) {
    const size_t at = size_t(options.warmup) + size_t(j);
    out.iteration_ns.push_back(stamps[at + 1] - stamps[at]);
  }
  return Status::Ok();
}

}  // namespace braid::cpu
