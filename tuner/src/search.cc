#include "braid/search.h"

#include <string>

#include "braid/name_table.h"
#include "search_ledger.h"
#include "strategies.h"

namespace braid {

namespace {
constexpr NameTable<Strategy, 4> kStrategyNames{{{Strategy::kExhaustive, "exhaustive"},
                                                 {Strategy::kRandom, "random"},
                                                 {Strategy::kHalving, "halving"},
                                                 {Strategy::kGuided, "guided"}}};
static_assert(IsOneToOne(kStrategyNames));
}  // namespace

std::string_view StrategyName(Strategy s) { return NameIn(kStrategyNames, s); }

Result<Strategy> ParseStrategy(std::string_view name) { return ParseNamed(kStrategyNames, "strategy", name); }

int PlannedTrials(const SearchOptions& o, size_t n) {
  int planned = 0;
  switch (o.strategy) {
    case Strategy::kExhaustive:
      planned = int(n);
      break;
    case Strategy::kRandom:
      planned = search::RandomCount(o, n);
      break;
    case Strategy::kGuided:
      planned = search::GuidedCount(o, n);
      break;
    case Strategy::kHalving: {
      int alive = int(n);
      for (int rung = 0; rung < 2 && alive > 3; ++rung) {
        planned += alive;
        alive = search::HalvingKeep(alive, rung);
      }
      planned += alive;
      break;
    }
  }
  if (o.recheck_max > 1) planned += std::min<int>(o.recheck_max, int(n));
  return o.budget > 0 ? std::min(planned, o.budget) : planned;
}

Result<SearchOutcome> Search(const std::vector<OverlapConfig>& space, TrialRunner& runner,
                             const SearchOptions& options) {
  if (space.empty()) return Status::Invalid("the search space is empty: no valid config for this workload");
  if (options.budget < 0) return Status::Invalid("`budget` must not be negative");
  if (options.iters < 1) return Status::Invalid("`iters` must be at least 1");
  if (options.warmup < 0) return Status::Invalid("`warmup` must not be negative");
  if (options.strategy == Strategy::kGuided && !options.guide) {
    return Status::Invalid("the guided strategy needs a guide (a model to rank the space with)");
  }
  search::Ledger ledger(space, runner, options, PlannedTrials(options, space.size()));
  Status s;
  switch (options.strategy) {
    case Strategy::kExhaustive:
      s = search::Exhaustive(ledger);
      break;
    case Strategy::kRandom:
      s = search::RandomSample(ledger);
      break;
    case Strategy::kHalving:
      s = search::Halving(ledger);
      break;
    case Strategy::kGuided:
      s = search::Guided(ledger, space);
      break;
  }
  if (!s.ok()) return s;
  return ledger.Conclude();
}

}  // namespace braid
