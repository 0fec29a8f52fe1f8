// Ring collectives over a Transport (P−1 peer-to-peer steps per phase, real
// sends and real adds), with the semantics of CollectiveKind in plan.h.
// Every rank calls the same function with the same match.
#pragma once

#include <cstdint>
#include <vector>

#include "braid/plan.h"
#include "braid/status.h"
#include "braid/transport.h"
#include "fp8_wire.h"
#include "row_span.h"

namespace braid {

struct RingComm {
  Transport* transport = nullptr;
  int rank = 0;
  int ranks = 1;
  int64_t match = 0;                      // numbers the collective; < 2^40
  std::vector<float>* scratch = nullptr;  // grown as needed, reusable across calls
  // FP8: every message is encoded (fp8_wire.h) and sent eagerly; a reduction
  // adds the decoded values in fp32. Default: fp32, sends in place.
  WireFormat wire{};
  std::vector<uint8_t>* wire_bytes = nullptr;  // the encode buffer; null: the collective's own
};

// Transport tag of internal ring step `step` of collective `match`; disjoint
// from plan send/recv tags (which are the step's match, < 2^62).
uint64_t CollectiveTag(int64_t match, int step);

// a: n rows; c: P·n rows, rows [q·n, (q+1)·n) ← rank q's a. `a` may be this
// rank's own part of `c` (in place). Returns the bytes this rank sent (on
// the wire: FP8 messages count their bytes and header).
Result<int64_t> RingAllGather(const RingComm& x, const RowSpan& a, const RowSpan& c);
// a: P·n rows; c: n rows = Σ_q rank q's rows [r·n, (r+1)·n). `a` is not changed.
Result<int64_t> RingReduceScatter(const RingComm& x, const RowSpan& a, const RowSpan& c);
// c = Σ_q rank q's a, any row count (segments may be uneven or empty). c may be a.
Result<int64_t> RingAllReduce(const RingComm& x, const RowSpan& a, const RowSpan& c);

Result<int64_t> RunRingCollective(CollectiveKind kind, const RingComm& x, const RowSpan& a, const RowSpan& c);

}  // namespace braid
