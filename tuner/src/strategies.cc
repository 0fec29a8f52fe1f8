// The four strategies of braid/search.h, on top of the shared ledger.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "search_ledger.h"
#include "strategies.h"

namespace braid::search {
namespace {

// Ends the loop of a strategy when the ledger stopped; passes errors on.
#define BRAID_MEASURE_OR_STOP(var, expr) \
  auto var = (expr);                     \
  if (!var.ok()) return var.status();    \
  if (!var->has_value()) return Status::Ok()

// Candidates ordered by a rung's medians, fastest first; ties by index.
std::vector<size_t> Ranked(const std::vector<std::pair<double, size_t>>& measured) {
  std::vector<std::pair<double, size_t>> sorted = measured;
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> out;
  for (const auto& [t, c] : sorted) out.push_back(c);
  return out;
}

}  // namespace

int HalvingKeep(int n, int rung) {
  const int divisor = rung == 0 ? 3 : 4;
  return std::max(std::min(n, 3), (n + divisor - 1) / divisor);
}

int GuidedCount(const SearchOptions& o, size_t n) {
  return int(std::min(n, std::max<size_t>(3, size_t(std::ceil(o.guided_fraction * double(n))))));
}

int RandomCount(const SearchOptions& o, size_t n) {
  return int(std::min(n, std::max<size_t>(3, size_t(std::ceil(o.random_fraction * double(n))))));
}

Status Exhaustive(Ledger& ledger) {
  for (size_t c = 0; c < ledger.space_size(); ++c) {
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
  }
  return Status::Ok();
}

Status RandomSample(Ledger& ledger) {
  const size_t n = ledger.space_size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  // Fisher–Yates with our own index draw: the sample depends on the seed
  // alone, not on the standard library's distributions.
  std::mt19937_64 rng(ledger.options().seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[size_t(rng() % i)]);
  order.resize(size_t(RandomCount(ledger.options(), n)));
  std::sort(order.begin(), order.end());  // measure in space order
  for (size_t c : order) {
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
  }
  return Status::Ok();
}

Status Halving(Ledger& ledger) {
  std::vector<size_t> alive(ledger.space_size());
  std::iota(alive.begin(), alive.end(), size_t{0});
  // Rungs: 1 timed iteration, then 2 (one warm-up), then a full measurement.
  // The first rung keeps a third, not a quarter: one noisy iteration can
  // rank a candidate within 2 % of the best below the first quarter.
  struct Rung {
    int warmup, iters;
    const char* stage;
  };
  const Rung rungs[] = {{0, 1, "rung0"}, {1, 2, "rung1"}};
  for (int rung = 0; rung < 2; ++rung) {
    const Rung& r = rungs[rung];
    if (alive.size() <= 3) break;
    std::vector<std::pair<double, size_t>> measured;
    for (size_t c : alive) {
      BRAID_ASSIGN_OR_RETURN(auto m, ledger.Measure(c, r.warmup, r.iters, r.stage, false));
      if (!m.has_value()) break;
      measured.emplace_back((m)->median_ns, c);
    }
    alive = Ranked(measured);
    alive.resize(std::min(alive.size(), size_t(HalvingKeep(int(measured.size()), rung))));
    if (ledger.stopped()) break;
  }
  for (size_t c : alive) {
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
  }
  return Status::Ok();
}

// Candidates that differ from c in one knob only, the algorithm kept: the
// next lower and next higher value of a numeric knob (chunks, comm lanes,
// comm SMs) among the configs otherwise equal to c, and any other value of
// the rest (splits, engine, priority).
std::vector<size_t> Neighbours(const std::vector<OverlapConfig>& space, size_t c) {
  const OverlapConfig& a = space[c];
  enum Knob { kChunks, kSplits, kLanes, kSms, kEngine, kPriority, kKnobs };
  auto differs = [](const OverlapConfig& x, const OverlapConfig& y, int knob) {
    switch (knob) {
      case kChunks:
        return x.chunks != y.chunks;
      case kSplits:
        return x.splits != y.splits;
      case kLanes:
        return x.comm_lanes != y.comm_lanes;
      case kSms:
        return x.comm_sms != y.comm_sms;
      case kEngine:
        return x.comm_engine != y.comm_engine;
      case kPriority:
        return x.comm_high_priority != y.comm_high_priority;
    }
    return false;
  };
  auto value = [](const OverlapConfig& x, int knob) {
    return knob == kChunks ? x.chunks : knob == kLanes ? x.comm_lanes : x.comm_sms;
  };
  std::vector<size_t> out;
  for (int knob = 0; knob < kKnobs; ++knob) {
    const bool numeric = knob == kChunks || knob == kLanes || knob == kSms;
    size_t below = space.size(), above = space.size();
    for (size_t d = 0; d < space.size(); ++d) {
      const OverlapConfig& b = space[d];
      if (d == c || b.algorithm != a.algorithm || !differs(a, b, knob)) continue;
      bool only = true;
      for (int other = 0; other < kKnobs && only; ++other) only = other == knob || !differs(a, b, other);
      if (!only) continue;
      if (!numeric) {
        out.push_back(d);
      } else if (value(b, knob) < value(a, knob)) {
        if (below == space.size() || value(b, knob) > value(space[below], knob)) below = d;
      } else if (above == space.size() || value(b, knob) < value(space[above], knob)) {
        above = d;
      }
    }
    if (below != space.size()) out.push_back(below);
    if (above != space.size()) out.push_back(above);
  }
  return out;
}

Status Guided(Ledger& ledger, const std::vector<OverlapConfig>& space) {
  const SearchOptions& o = ledger.options();
  std::vector<std::pair<double, size_t>> predicted;
  std::vector<double> guess(space.size());
  for (size_t c = 0; c < space.size(); ++c) {
    BRAID_ASSIGN_OR_RETURN(auto t, o.guide(space[c]));
    predicted.emplace_back(t, c);
    guess[c] = t;
  }
  const std::vector<size_t> ranked = Ranked(predicted);
  const size_t want = size_t(GuidedCount(o, space.size()));
  // The guide's top half of the picks, then its best of every algorithm
  // not yet picked.
  std::vector<size_t> picks(ranked.begin(), ranked.begin() + long((want + 1) / 2));
  auto picked = [&](size_t c) { return std::find(picks.begin(), picks.end(), c) != picks.end(); };
  for (size_t c : ranked) {
    if (picks.size() >= want) break;
    const bool family_seen =
        std::any_of(picks.begin(), picks.end(), [&](size_t p) { return space[p].algorithm == space[c].algorithm; });
    if (!family_seen) picks.push_back(c);
  }
  std::map<size_t, double> measured;  // candidate -> median
  for (size_t c : picks) {
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
    measured[c] = (*m)->median_ns;
  }
  // Then local refinement on the target: the guide errs most along a knob
  // (the comm SMs a faster link needs, the chunk count a different launch
  // cost favours), so the measured best of every algorithm within
  // `guided_refine_within` of the best has its unmeasured one-knob
  // neighbours measured, one per algorithm per round (the guide's favourite
  // neighbour first), the algorithms in the order of their measured best.
  while (picks.size() < want) {
    std::map<Algorithm, size_t> family_best;
    double best = 0;
    for (const auto& [c, t] : measured) {
      auto it = family_best.find(space[c].algorithm);
      if (it == family_best.end() || t < measured[it->second]) family_best[space[c].algorithm] = c;
      if (best == 0 || t < best) best = t;
    }
    std::vector<std::pair<double, size_t>> leaders;
    for (const auto& [alg, c] : family_best) {
      if (measured[c] <= best * (1 + o.guided_refine_within)) leaders.emplace_back(measured[c], c);
    }
    std::sort(leaders.begin(), leaders.end());
    bool any = false;
    for (const auto& [t, c] : leaders) {
      if (picks.size() >= want) break;
      size_t next = space.size();
      for (size_t d : Neighbours(space, c)) {
        if (picked(d)) continue;
        if (next == space.size() || guess[d] < guess[next] || (guess[d] == guess[next] && d < next)) next = d;
      }
      if (next == space.size()) continue;
      any = true;
      picks.push_back(next);
      BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(next));
      measured[next] = (*m)->median_ns;
    }
    if (!any) break;
  }
  // Then the rest of the guide's ranking.
  for (size_t c : ranked) {
    if (picks.size() >= want) break;
    if (picked(c)) continue;
    picks.push_back(c);
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
  }
  return Status::Ok();
}

}  // namespace braid::search
