// Ring collectives. Rank r sends to r+1 and receives from r−1; a message
// received at internal step s was sent with tag (match, s), so concurrent
// collectives and steps never mix.
#include "cpu_collectives.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace braid {

namespace {

int Mod(int a, int p) { return ((a % p) + p) % p; }
int Next(const RingComm& x) { return Mod(x.rank + 1, x.ranks); }
int Prev(const RingComm& x) { return Mod(x.rank - 1, x.ranks); }

// Three scratch areas of `elems` floats: [0] and [1] receive / accumulate
// buffers (reduce-scatter alternates them: one is received into while the
// other is still being sent), [2] packing for rows sent that are not adjacent
// in memory. Sends go out in place and are settled at the end of each ring
// step (after its receive), so no area is written while a send reads it, and
// waiting cannot deadlock: the successor posts step s's receive right after
// its own step-s send.
struct Scratch {
  Scratch(const RingComm& x, int64_t elems) : v(x.scratch ? x.scratch : &own) {
    if (v->size() < size_t(3 * elems)) v->resize(size_t(3 * elems));
    tmp[0] = v->data();
    tmp[1] = v->data() + elems;
    pack = v->data() + 2 * elems;
  }
  std::vector<float> own;
  std::vector<float>* v;
  float* tmp[2] = {nullptr, nullptr};
  float* pack = nullptr;
  PendingSends sent;  // this collective's sends not yet settled
  std::vector<uint8_t> own_bytes;
  int64_t wire_bytes = 0;  // what this rank's sends put on the wire

  std::vector<uint8_t>& bytes(const RingComm& x) { return x.wire_bytes ? *x.wire_bytes : own_bytes; }
};

// Sends `count` floats from `p` to the next rank: in place as fp32, or
// encoded and eager as FP8 (x.wire).
Status SendFrom(const RingComm& x, const float* p, int64_t count, int step, Scratch& sc) {
  const uint64_t tag = CollectiveTag(x.match, step);
  if (x.wire.fp8) {
    BRAID_ASSIGN_OR_RETURN(int64_t moved, WireSend(*x.transport, x.wire, x.rank, Next(x), tag, p, count, sc.bytes(x)));
    sc.wire_bytes += moved;
    return Status::Ok();
  }
  sc.wire_bytes += count * int64_t(sizeof(float));
  return x.transport->SendInPlace(x.rank, Next(x), tag, p, count, sc.sent);
}

// Receives `count` floats from the previous rank into `p` (decoded when FP8).
Status RecvInto(const RingComm& x, float* p, int64_t count, int step, Scratch& sc) {
  return WireRecv(*x.transport, x.wire, x.rank, Prev(x), CollectiveTag(x.match, step), p, count, sc.bytes(x)).status();
}

Status SendRows(const RingComm& x, const RowSpan& s, int64_t i, int64_t n, int step, Scratch& sc) {
  const float* p = s.contiguous(i, n);
  if (p == nullptr) {
    CopyRowsOut(s, i, n, sc.pack);
    p = sc.pack;
  }
  return SendFrom(x, p, n * s.cols, step, sc);
}

// Receives into `s` (through tmp[0] when the rows are not adjacent), then
// settles the step's send.
Status RecvRows(const RingComm& x, const RowSpan& s, int64_t i, int64_t n, int step, Scratch& sc) {
  if (float* p = s.contiguous(i, n)) {
    BRAID_RETURN_IF_ERROR(RecvInto(x, p, n * s.cols, step, sc));
  } else {
    BRAID_RETURN_IF_ERROR(RecvInto(x, sc.tmp[0], n * s.cols, step, sc));
    CopyRowsIn(sc.tmp[0], s, i, n);
  }
  return x.transport->Settle(sc.sent);
}

// Rows [di, di+n) of dst = rows [si, si+n) of src; a row onto itself is skipped.
void CopySpanRows(const RowSpan& src, int64_t si, const RowSpan& dst, int64_t di, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    float* d = dst.row(di + j);
    const float* s = src.row(si + j);
    if (d != s) std::memmove(d, s, size_t(dst.cols) * sizeof(float));
  }
}

Status CheckShapes(const char* what, const RingComm& x, const RowSpan& a, const RowSpan& c, int64_t a_rows,
                   int64_t c_rows) {
  if (x.transport == nullptr && x.ranks > 1) return Status::Internal(std::string(what) + ": no transport");
  if (a.cols != c.cols || a.total_rows() != a_rows || c.total_rows() != c_rows) {
    return Status::Internal(std::string(what) + ": shapes do not match (" + std::to_string(a.total_rows()) + "x" +
                            std::to_string(a.cols) + " -> " + std::to_string(c.total_rows()) + "x" +
                            std::to_string(c.cols) + ")");
  }
  return Status::Ok();
}

// Segment q of R rows cut into P nearly equal parts (the first R mod P get one more).
struct Segment {
  int64_t begin, rows;
};
Segment SegmentOf(int64_t total, int p, int q) {
  const int64_t base = total / p, extra = total % p;
  return {q * base + std::min<int64_t>(q, extra), base + (q < extra ? 1 : 0)};
}

}  // namespace

uint64_t CollectiveTag(int64_t match, int step) {
  return (uint64_t{1} << 62) | (uint64_t(match) << 20) | uint64_t(step);
}

Result<int64_t> RingAllGather(const RingComm& x, const RowSpan& a, const RowSpan& c) {
  const int64_t n = a.total_rows();
  BRAID_RETURN_IF_ERROR(CheckShapes("all_gather", x, a, c, n, n * x.ranks));
  CopySpanRows(a, 0, c, x.rank * n, n);
  Scratch sc(x, n * c.cols);
  for (int s = 0; s + 1 < x.ranks; ++s) {
    BRAID_RETURN_IF_ERROR(SendRows(x, c, Mod(x.rank - s, x.ranks) * n, n, s, sc));
    BRAID_RETURN_IF_ERROR(RecvRows(x, c, Mod(x.rank - s - 1, x.ranks) * n, n, s, sc));
  }
  return sc.wire_bytes;
}

Result<int64_t> RingReduceScatter(const RingComm& x, const RowSpan& a, const RowSpan& c) {
  const int64_t n = c.total_rows();
  BRAID_RETURN_IF_ERROR(CheckShapes("reduce_scatter", x, a, c, n * x.ranks, n));
  if (x.ranks == 1) {
    CopySpanRows(a, 0, c, 0, n);
    return int64_t{0};
  }
  Scratch sc(x, n * c.cols);
  // The accumulator for block (r − s − 2) arrives at step s (in tmp[s % 2]);
  // the last one is ours.
  BRAID_RETURN_IF_ERROR(SendRows(x, a, Mod(x.rank - 1, x.ranks) * n, n, 0, sc));
  for (int s = 0; s + 1 < x.ranks; ++s) {
    const int64_t blk = Mod(x.rank - s - 2, x.ranks);
    float* acc = sc.tmp[s % 2];
    BRAID_RETURN_IF_ERROR(RecvInto(x, acc, n * c.cols, s, sc));
    // Step s's send (from the other area) is done before that area is received into again.
    BRAID_RETURN_IF_ERROR(x.transport->Settle(sc.sent));
    AddRowsTo(a, blk * n, n, acc);
    if (s + 2 < x.ranks) {
      BRAID_RETURN_IF_ERROR(SendFrom(x, acc, n * c.cols, s + 1, sc));
    } else {
      CopyRowsIn(acc, c, 0, n);
    }
  }
  return sc.wire_bytes;
}

Result<int64_t> RingAllReduce(const RingComm& x, const RowSpan& a, const RowSpan& c) {
  const int64_t total = c.total_rows();
  const int p = x.ranks, r = x.rank;
  BRAID_RETURN_IF_ERROR(CheckShapes("all_reduce", x, a, c, total, total));
  CopySpanRows(a, 0, c, 0, total);
  if (p == 1) return int64_t{0};
  Scratch sc(x, SegmentOf(total, p, 0).rows * c.cols);
  // Reduce-scatter in place: after P−1 steps rank r holds the sum of segment r+1.
  for (int s = 0; s + 1 < p; ++s) {
    const Segment out = SegmentOf(total, p, Mod(r - s, p)), in = SegmentOf(total, p, Mod(r - s - 1, p));
    BRAID_RETURN_IF_ERROR(SendRows(x, c, out.begin, out.rows, s, sc));
    BRAID_RETURN_IF_ERROR(RecvInto(x, sc.tmp[0], in.rows * c.cols, s, sc));
    BRAID_RETURN_IF_ERROR(x.transport->Settle(sc.sent));
    AddRowsTo(c, in.begin, in.rows, sc.tmp[0]);
    CopyRowsIn(sc.tmp[0], c, in.begin, in.rows);
  }
  // All-gather the finished segments around the same ring.
  for (int s = 0; s + 1 < p; ++s) {
    const Segment out = SegmentOf(total, p, Mod(r + 1 - s, p)), in = SegmentOf(total, p, Mod(r - s, p));
    BRAID_RETURN_IF_ERROR(SendRows(x, c, out.begin, out.rows, p - 1 + s, sc));
    BRAID_RETURN_IF_ERROR(RecvRows(x, c, in.begin, in.rows, p - 1 + s, sc));
  }
  return sc.wire_bytes;
}

Result<int64_t> RunRingCollective(CollectiveKind kind, const RingComm& x, const RowSpan& a, const RowSpan& c) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return RingAllGather(x, a, c);
    case CollectiveKind::kReduceScatter:
      return RingReduceScatter(x, a, c);
    case CollectiveKind::kAllReduce:
      return RingAllReduce(x, a, c);
  }
  return Status::Internal("unknown collective kind");
}

}  // namespace braid
