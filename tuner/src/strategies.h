// The strategies' loops (strategies.cc) and their default sizes.
#pragma once

#include <vector>

#include "search_ledger.h"

namespace braid::search {

int HalvingKeep(int n);  // survivors of a rung of n: a quarter, at least 3
int GuidedCount(const SearchOptions& o, size_t n);
int RandomCount(const SearchOptions& o, size_t n);

Status Exhaustive(Ledger& ledger);
Status RandomSample(Ledger& ledger);
Status Halving(Ledger& ledger);
Status Guided(Ledger& ledger, const std::vector<OverlapConfig>& space);

}  // namespace braid::search
