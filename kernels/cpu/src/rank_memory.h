// One rank's buffers as real fp32 arrays, and the memory budget check.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/host_matrix.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "row_span.h"

namespace braid::cpu {

class RankMemory {
 public:
  // Zeroed buffers; kInput buffers filled from their window of A or B of
  // their op: a[d.op], b[d.op] (one entry for a single-op plan).
  RankMemory(const RankPlan& plan, const std::vector<HostMatrix>& a, const std::vector<HostMatrix>& b);

  RowSpan Span(const Region& r);
  RowSpan Whole(BufferId b);
  const float* data(BufferId b) const { return buffers_[size_t(b)].data(); }

 private:
  const RankPlan* plan_;
  std::vector<std::vector<float>> buffers_;
};

// Bytes one process of the run allocates: every op's whole A and B; the
// buffers of every rank (ranks as threads, `rank` < 0) or of rank `rank` (one
// rank per process); and when verifying, the block chain's temporaries
// (block_inputs.h) and the references: every op's whole C with ranks as
// threads, the largest of the rank's output windows with one rank per process.
double RunBytes(const Plan& plan, bool verify, int rank = -1);
// Rejects (Invalid) a run that needs more than ~70% of physical memory.
Status CheckMemory(double bytes);

}  // namespace braid::cpu
