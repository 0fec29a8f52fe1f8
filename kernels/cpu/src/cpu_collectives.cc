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

// Two scratch areas of `elems` floats: [0] a receive / accumulate buffer,
// [1] packing for rows that are not adjacent in memory.
struct Scratch {
  Scratch(const RingComm& x, int64_t elems) : v(x.scratch ? x.scratch : &own) {
    if (v->size() < size_t(2 * elems)) v->resize(size_t(2 * elems));
    tmp = v->data();
    pack = v->data() + elems;
  }
  std::vector<float> own;
  std::vector<float>* v;
  float* tmp = nullptr;
  float* pack = nullptr;
};

Status SendRows(const RingComm& x, const RowSpan& s, int64_t i, int64_t n, int step, float* pack) {
  const float* p = s.contiguous(i, n);
  if (p == nullptr) {
    CopyRowsOut(s, i, n, pack);
    p = pack;
  }
  return x.transport->Send(x.rank, Next(x), CollectiveTag(x.match, step), p, n * s.cols);
}

Status RecvRows(const RingComm& x, const RowSpan& s, int64_t i, int64_t n, int step, float* pack) {
  const uint64_t tag = CollectiveTag(x.match, step);
  if (float* p = s.contiguous(i, n)) return x.transport->Recv(x.rank, Prev(x), tag, p, n * s.cols);
  BRAID_RETURN_IF_ERROR(x.transport->Recv(x.rank, Prev(x), tag, pack, n * s.cols));
  CopyRowsIn(pack, s, i, n);
  return Status::Ok();
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
    BRAID_RETURN_IF_ERROR(SendRows(x, c, Mod(x.rank - s, x.ranks) * n, n, s, sc.pack));
    BRAID_RETURN_IF_ERROR(RecvRows(x, c, Mod(x.rank - s - 1, x.ranks) * n, n, s, sc.pack));
  }
  return int64_t(x.ranks - 1) * n * c.cols * int64_t(sizeof(float));
}

Result<int64_t> RingReduceScatter(const RingComm& x, const RowSpan& a, const RowSpan& c) {
  const int64_t n = c.total_rows();
  BRAID_RETURN_IF_ERROR(CheckShapes("reduce_scatter", x, a, c, n * x.ranks, n));
  if (x.ranks == 1) {
    CopySpanRows(a, 0, c, 0, n);
    return int64_t{0};
  }
  Scratch sc(x, n * c.cols);
  // The accumulator for block (r − s − 2) arrives at step s; the last one is ours.
  BRAID_RETURN_IF_ERROR(SendRows(x, a, Mod(x.rank - 1, x.ranks) * n, n, 0, sc.pack));
  for (int s = 0; s + 1 < x.ranks; ++s) {
    const int64_t blk = Mod(x.rank - s - 2, x.ranks);
    BRAID_RETURN_IF_ERROR(x.transport->Recv(x.rank, Prev(x), CollectiveTag(x.match, s), sc.tmp, n * c.cols));
    AddRowsTo(a, blk * n, n, sc.tmp);
    if (s + 2 < x.ranks) {
      BRAID_RETURN_IF_ERROR(x.transport->Send(x.rank, Next(x), CollectiveTag(x.match, s + 1), sc.tmp, n * c.cols));
    } else {
      CopyRowsIn(sc.tmp, c, 0, n);
    }
  }
  return int64_t(x.ranks - 1) * n * c.cols * int64_t(sizeof(float));
}

Result<int64_t> RingAllReduce(const RingComm& x, const RowSpan& a, const RowSpan& c) {
  const int64_t total = c.total_rows();
  const int p = x.ranks, r = x.rank;
  BRAID_RETURN_IF_ERROR(CheckShapes("all_reduce", x, a, c, total, total));
  CopySpanRows(a, 0, c, 0, total);
  if (p == 1) return int64_t{0};
  Scratch sc(x, SegmentOf(total, p, 0).rows * c.cols);
  int64_t sent = 0;
  // Reduce-scatter in place: after P−1 steps rank r holds the sum of segment r+1.
  for (int s = 0; s + 1 < p; ++s) {
    const Segment out = SegmentOf(total, p, Mod(r - s, p)), in = SegmentOf(total, p, Mod(r - s - 1, p));
    BRAID_RETURN_IF_ERROR(SendRows(x, c, out.begin, out.rows, s, sc.pack));
    BRAID_RETURN_IF_ERROR(x.transport->Recv(r, Prev(x), CollectiveTag(x.match, s), sc.tmp, in.rows * c.cols));
    AddRowsTo(c, in.begin, in.rows, sc.tmp);
    CopyRowsIn(sc.tmp, c, in.begin, in.rows);
    sent += out.rows;
  }
  // All-gather the finished segments around the same ring.
  for (int s = 0; s + 1 < p; ++s) {
    const Segment out = SegmentOf(total, p, Mod(r + 1 - s, p)), in = SegmentOf(total, p, Mod(r - s, p));
    BRAID_RETURN_IF_ERROR(SendRows(x, c, out.begin, out.rows, p - 1 + s, sc.pack));
    BRAID_RETURN_IF_ERROR(RecvRows(x, c, in.begin, in.rows, p - 1 + s, sc.pack));
    sent += out.rows;
  }
  return sent * c.cols * int64_t(sizeof(float));
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
