#include "region_runs.h"

#include <algorithm>

namespace braid::cuda {

bool Contiguous(const Region& r) { return r.pieces <= 1 || r.stride == r.rows; }

std::vector<RowRun> RowRuns(const std::vector<Region>& regions) {
  std::vector<RowRun> runs;
  if (regions.empty()) return runs;
  const int64_t total = regions[0].total_rows();
  int64_t at = 0;
  while (at < total) {
    RowRun run;
    int64_t len = total - at;
    for (const Region& r : regions) {
      // A contiguous region is one long piece.
      const int64_t piece_rows = Contiguous(r) ? r.total_rows() : r.rows;
      const int64_t piece = piece_rows > 0 ? at / piece_rows : 0;
      const int64_t within = at - piece * piece_rows;
      run.row.push_back(r.row + piece * (Contiguous(r) ? 0 : r.stride) + within);
      len = std::min(len, piece_rows - within);
    }
    if (len <= 0) break;  // malformed: the caller's plan check rules this out
    run.rows = len;
    runs.push_back(std::move(run));
    at += len;
  }
  return runs;
}

}  // namespace braid::cuda
