// The strategies' loops (strategies.cc) and their default sizes.
#pragma once

#include <vector>

#include "search_ledger.h"

namespace braid::search {

// Survivors of halving's rung `rung` (0, 1) of n candidates: a third
// after the first, a quarter after the second, at least 3.
int HalvingKeep(int n, int rung);
int GuidedCount(const SearchOptions& o, size_t n);
int RandomCount(const SearchOptions& o, size_t n);

Status Exhaustive(Ledger& ledger);
Status RandomSample(Ledger& ledger);
Status Halving(Ledger& ledger);
Status Guided(Ledger& ledger, const std::vector<OverlapConfig>& space);

}  // namespace braid::search
