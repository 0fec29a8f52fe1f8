// Walking plan Regions that have different piece structures side by side:
// the flattened rows of every region, cut where any region's piece ends, so
// each run is contiguous in all of them (one copy or add per run).
#pragma once

#include <cstdint>
#include <vector>

#include "braid/plan.h"

namespace braid::cuda {

struct RowRun {
  std::vector<int64_t> row;  // absolute buffer row where the run starts, per region
  int64_t rows = 0;
};

// @pre every region has the same total_rows().
std::vector<RowRun> RowRuns(const std::vector<Region>& regions);

// Rows that are adjacent in memory: one piece, or pieces that touch.
bool Contiguous(const Region& r);

}  // namespace braid::cuda
