// The four strategies of braid/search.h, on top of the shared ledger.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "search_ledger.h"
#include "strategies.h"

namespace braid::search {
namespace {

// Ends the loop of a strategy when the ledger stopped; passes errors on.
#define BRAID_MEASURE_OR_STOP(var, expr)        \
  auto var = (expr);                            \
  if (!var.ok()) return var.status();           \
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

int HalvingKeep(int n) { return std::max(std::min(n, 3), (n + 3) / 4); }

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
  // Rungs: 1 timed iteration, then 4 (one warm-up), then a full measurement.
  struct Rung {
    int warmup, iters;
    const char* stage;
  };
  const Rung rungs[] = {{0, 1, "rung0"}, {1, 4, "rung1"}};
  for (const Rung& r : rungs) {
    if (alive.size() <= 3) break;
    std::vector<std::pair<double, size_t>> measured;
    for (size_t c : alive) {
      auto m = ledger.Measure(c, r.warmup, r.iters, r.stage, false);
      if (!m.ok()) return m.status();
      if (!m->has_value()) break;
      measured.emplace_back((*m)->median_ns, c);
    }
    alive = Ranked(measured);
    alive.resize(std::min(alive.size(), size_t(HalvingKeep(int(measured.size())))));
    if (ledger.stopped()) break;
  }
  for (size_t c : alive) {
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
  }
  return Status::Ok();
}

Status Guided(Ledger& ledger, const std::vector<OverlapConfig>& space) {
  const SearchOptions& o = ledger.options();
  std::vector<std::pair<double, size_t>> predicted;
  for (size_t c = 0; c < space.size(); ++c) {
    Result<double> t = o.guide(space[c]);
    if (!t.ok()) return t.status();
    predicted.emplace_back(*t, c);
  }
  const std::vector<size_t> ranked = Ranked(predicted);
  const size_t want = size_t(GuidedCount(o, space.size()));
  // The guide's top half of the picks, then its best of every algorithm
  // not yet picked, then the rest of its ranking.
  std::vector<size_t> picks(ranked.begin(), ranked.begin() + long((want + 1) / 2));
  auto picked = [&](size_t c) { return std::find(picks.begin(), picks.end(), c) != picks.end(); };
  for (size_t c : ranked) {
    if (picks.size() >= want) break;
    const bool family_seen = std::any_of(picks.begin(), picks.end(), [&](size_t p) {
      return space[p].algorithm == space[c].algorithm;
    });
    if (!family_seen) picks.push_back(c);
  }
  for (size_t c : ranked) {
    if (picks.size() >= want) break;
    if (!picked(c)) picks.push_back(c);
  }
  for (size_t c : picks) {
    BRAID_MEASURE_OR_STOP(m, ledger.MeasureFull(c));
  }
  return Status::Ok();
}

}  // namespace braid::search
