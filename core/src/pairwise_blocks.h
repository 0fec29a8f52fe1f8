// What the planners that pair ranks directly share (direct, a2a,
// a2a_direct): at step s (1 ≤ s < P) rank r sends to r+s and receives from
// r−s, one transfer per sub-chunk of a rank block of M/P rows; sends run on
// comm lane 1, receives on lane 2 when there are two lanes.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "braid/workload.h"
#include "row_split.h"

namespace braid::detail {

struct PairwiseBlocks {
  std::vector<RowRange> subs;  // sub-chunks of a rank block
  int p = 1;
  int64_t mb = 0;  // rows per block
  int comm_lanes = 1;

  int SendLane() const { return 1; }
  int RecvLane() const { return comm_lanes > 1 ? 2 : 1; }
  // One id per (sender, step, sub-chunk): both ends compute the same number.
  int64_t Match(int sender, int s, int j) const { return (int64_t(sender) * p + s) * int64_t(subs.size()) + j; }
  // Sub-chunk j of block `blk` of a buffer that holds P blocks.
  Region BlockRows(BufferId buf, int blk, int j) const {
    const RowRange s = subs[size_t(j)];
    return Region::Rows(buf, int64_t(blk) * mb + s.begin, s.rows);
  }
  int subs_count() const { return int(subs.size()); }
};

// Blocks of M/P rows cut into `chunks` even sub-chunks (no weights).
inline Result<PairwiseBlocks> MakePairwiseBlocks(const Workload& w, const OverlapConfig& cfg) {
  PairwiseBlocks x;
  x.p = w.tp;
  x.mb = w.m / w.tp;
  x.comm_lanes = cfg.comm_lanes;
  BRAID_ASSIGN_OR_RETURN(x.subs,
                         SplitRows(x.mb, cfg.chunks, {}, "rows per rank block (M/P)", /*weights_allowed=*/false));
  return x;
}

}  // namespace braid::detail
