// The GEMMs of a loaded timeline with their overlap (braid/gemm_overlap.h),
// for the viewer's GEMM table and labels: an imported trace's kernels keep
// their names, and TE's and PyTorch's ranges (NVTX, record_function) their
// lanes, so the same analysis `braid report --by-gemm` makes runs here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "braid/gemm_overlap.h"
#include "braid/view/timeline.h"

namespace braid::view {

// Every GEMM of `t` (stored times), by rank, iteration and index.
std::vector<GemmOverlapRow> GemmRowsOf(const Timeline& t);

// What the timeline writes on each GEMM's first kernel, keyed by (rank,
// stored start): its label where a range names it, its method and verdict
// ("qkv_fprop · ring · overlapped").
std::map<std::pair<int, int64_t>, std::string> GemmNotesOf(const std::vector<GemmOverlapRow>& rows);

// Whether a run of this backend is an imported trace (kineto, nsys): the
// runs the viewer analyses GEMM by GEMM.
bool IsImportedBackend(const std::string& backend);

}  // namespace braid::view
