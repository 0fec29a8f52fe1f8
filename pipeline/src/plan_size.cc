#include "plan_size.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "braid/planner.h"

namespace braid::pipeline {

namespace {

std::string Gb(double bytes) {
  char out[64];
  std::snprintf(out, sizeof out, "%.3g GB", bytes / 1e9);
  return out;
}

// The chunk count the planners repeat steps by.
int64_t Chunks(const OverlapConfig& c) { return c.splits.empty() ? c.chunks : int64_t(c.splits.size()); }

OverlapConfig WithChunks(const OverlapConfig& c, int chunks) {
  OverlapConfig out = c;
  out.splits.clear();
  out.chunks = chunks;
  return out;
}

// Steps of `w`'s plan at P with 1 or 2 chunks; -1 when it cannot be planned.
int64_t StandInSteps(const Workload& w, const OverlapConfig& c, int p, int chunks) {
  Workload s = w;
  s.tp = p;
  // Rows and columns enough for any planner's split (blocks per rank,
  // halves for the bidirectional ring, chunks): the step count does not
  // depend on the sizes beyond that.
  s.m = int64_t(p) * 64;
  s.n = int64_t(p) * 64;
  s.k = int64_t(p) * 64;
  auto plan = BuildPlan(s, WithChunks(c, chunks));
  return plan.ok() ? int64_t(plan->total_steps()) : -1;
}

// The parabola through (4, f4), (8, f8), (16, f16) at x.
double Parabola(double f4, double f8, double f16, double x) {
  // Lagrange form.
  const double l4 = (x - 8) * (x - 16) / ((4 - 8) * (4 - 16));
  const double l8 = (x - 4) * (x - 16) / ((8 - 4) * (8 - 16));
  const double l16 = (x - 4) * (x - 8) / ((16 - 4) * (16 - 8));
  return f4 * l4 + f8 * l8 + f16 * l16;
}

int64_t Extrapolate(double one, double two, int64_t chunks) {
  const double steps = chunks > 1 ? one + (two - one) * double(chunks - 1) : one;
  if (!std::isfinite(steps) || steps < 0) return 0;
  return steps > 9e18 ? int64_t(9e18) : int64_t(steps);
}

}  // namespace

int64_t EstimatePlanSteps(const Workload& workload, const OverlapConfig& config) {
  const int p = workload.tp;
  // Serial and fused take one chunk only: no line to draw.
  const int probes = Chunks(config) > 1 ? 2 : 1;
  double at[2] = {0, 0};
  for (int chunks = 1; chunks <= probes; ++chunks) {
    if (p <= 16) {
      const int64_t s = StandInSteps(workload, config, p, chunks);
      if (s < 0) return 0;
      at[chunks - 1] = double(s);
      continue;
    }
    const int64_t f4 = StandInSteps(workload, config, 4, chunks);
    const int64_t f8 = StandInSteps(workload, config, 8, chunks);
    const int64_t f16 = StandInSteps(workload, config, 16, chunks);
    if (f4 < 0 || f8 < 0 || f16 < 0) return 0;
    at[chunks - 1] = Parabola(double(f4), double(f8), double(f16), double(p));
  }
  return Extrapolate(at[0], at[1], Chunks(config));
}

int64_t EstimateLayerPlanSteps(const LayerWorkload& layer, const OverlapConfig& config) {
  const int probes = Chunks(config) > 1 ? 2 : 1;
  double at[2] = {0, 0};
  for (int chunks = 1; chunks <= probes; ++chunks) {
    auto plan = BuildLayerPlan(layer, WithChunks(config, chunks));
    if (!plan.ok()) return 0;
    at[chunks - 1] = double(plan->total_steps());
  }
  return Extrapolate(at[0], at[1], Chunks(config));
}

int64_t EstimateRunBytes(int64_t steps, int iters) {
  return steps * kPlanBytesPerStep + steps * int64_t(std::max(iters, 0)) * kEventBytes;
}

Status CheckPlanSteps(int64_t steps, int tp, const OverlapConfig& config) {
  if (steps <= kMaxPlanSteps) return Status::Ok();
  const std::string size = Gb(double(steps) * double(kPlanBytesPerStep));
  return Status::Invalid("the plan would have about " + std::to_string(steps) + " steps (`tp` " + std::to_string(tp) +
                         ", `chunks` " + std::to_string(Chunks(config)) + ": about " + size + " to build); at most " +
                         std::to_string(kMaxPlanSteps) + ": lower `chunks` or `tp`");
}

Status CheckRunEvents(int64_t steps, int iters) {
  const int64_t events = steps * int64_t(std::max(iters, 0));
  if (events <= kMaxRunEvents) return Status::Ok();
  return Status::Invalid("the run would record " + std::to_string(events) + " events (`iters` " +
                         std::to_string(iters) + " x " + std::to_string(steps) + " steps of the plan, about " +
                         Gb(double(EstimateRunBytes(steps, iters))) + " with the plan); at most " +
                         std::to_string(kMaxRunEvents) + ": lower `iters`");
}

}  // namespace braid::pipeline
