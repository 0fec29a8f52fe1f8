#include "step_exec.h"

#include <cstring>

#include "blas_library.h"
#include "cpu_collectives.h"

namespace braid::cpu {

namespace {

constexpr int64_t kFloat = int64_t(sizeof(float));

// c = a · B (c += a · B when the step accumulates), one sgemm per piece
// (pieces of a and c correspond).
int64_t Gemm(const Step& s, const StepContext& x) {
  const RowSpan a = x.memory->Span(s.a), c = x.memory->Span(s.c);
  const RowSpan b = x.memory->Whole(s.b.buffer);
  const float beta = s.accumulate ? 1.0f : 0.0f;
  if (s.a.rows > 0 && b.cols > 0) {
    for (int p = 0; p < s.a.pieces; ++p) {
      Sgemm(s.a.rows, b.cols, b.rows, a.base + s.a.piece_row(p) * a.cols, a.cols, b.base, b.cols, beta,
            c.base + s.c.piece_row(p) * c.cols, c.cols);
    }
  }
  return (s.accumulate ? 2 : 1) * c.elements() * kFloat;
}

// c = a + b; c may be a or b (same element read before it is written).
int64_t Reduce(const Step& s, const StepContext& x) {
  const RowSpan a = x.memory->Span(s.a), b = x.memory->Span(s.b), c = x.memory->Span(s.c);
  for (int64_t i = 0; i < c.total_rows(); ++i) {
    const float* ra = a.row(i);
    const float* rb = b.row(i);
    float* rc = c.row(i);
    for (int64_t j = 0; j < c.cols; ++j) rc[j] = ra[j] + rb[j];
  }
  return 3 * c.elements() * kFloat;
}

int64_t Copy(const Step& s, const StepContext& x) {
  const RowSpan a = x.memory->Span(s.a), c = x.memory->Span(s.c);
  for (int64_t i = 0; i < c.total_rows(); ++i) {
    std::memmove(c.row(i), a.row(i), size_t(c.cols) * sizeof(float));
  }
  return 2 * c.elements() * kFloat;
}

float* Scratch(const StepContext& x, int64_t elems) {
  if (x.scratch->size() < size_t(elems)) x.scratch->resize(size_t(elems));
  return x.scratch->data();
}

// The lane's encode buffer, or `local` for a context without one.
std::vector<uint8_t>& WireBytes(const StepContext& x, std::vector<uint8_t>& local) {
  return x.wire_bytes != nullptr ? *x.wire_bytes : local;
}

WireFormat WireOf(const Step& s, const StepContext& x) {
  if (x.wires == nullptr || s.op < 0 || size_t(s.op) >= x.wires->size()) return {};
  return (*x.wires)[size_t(s.op)];
}

Result<int64_t> Send(const Step& s, const StepContext& x) {
  const RowSpan a = x.memory->Span(s.a);
  const float* p = a.contiguous(0, a.total_rows());
  const WireFormat wire = WireOf(s, x);
  const std::vector<bool>* in_place = x.send_in_place;
  if (!wire.fp8 && p != nullptr && x.pending != nullptr && in_place != nullptr && size_t(s.id) < in_place->size() &&
      (*in_place)[size_t(s.id)]) {
    BRAID_RETURN_IF_ERROR(x.transport->SendInPlace(x.rank, s.peer, uint64_t(s.match), p, a.elements(), *x.pending));
    return a.elements() * kFloat;
  }
  if (p == nullptr) {
    float* pack = Scratch(x, a.elements());
    CopyRowsOut(a, 0, a.total_rows(), pack);
    p = pack;
  }
  std::vector<uint8_t> local;
  return WireSend(*x.transport, wire, x.rank, s.peer, uint64_t(s.match), p, a.elements(), WireBytes(x, local));
}

Result<int64_t> Recv(const Step& s, const StepContext& x) {
  const RowSpan c = x.memory->Span(s.c);
  const WireFormat wire = WireOf(s, x);
  std::vector<uint8_t> local;
  std::vector<uint8_t>& bytes = WireBytes(x, local);
  if (float* p = c.contiguous(0, c.total_rows())) {
    return WireRecv(*x.transport, wire, x.rank, s.peer, uint64_t(s.match), p, c.elements(), bytes);
  }
  float* pack = Scratch(x, c.elements());
  BRAID_ASSIGN_OR_RETURN(int64_t moved,
                         WireRecv(*x.transport, wire, x.rank, s.peer, uint64_t(s.match), pack, c.elements(), bytes));
  CopyRowsIn(pack, c, 0, c.total_rows());
  return moved;
}

// A compute step (attention) has FLOPs but no buffers. The cpu backend does
// real work of the same FLOPs: repeated kTileM×kTileN×kTileK sgemms on the
// lane's scratch, not attention itself (no softmax, no data dependence on
// the layer's GEMMs). Rounded up to whole tiles.
int64_t Compute(const Step& s, const StepContext& x) {
  constexpr int64_t kTileM = 256, kTileN = 64, kTileK = 64;
  constexpr double kTileFlops = 2.0 * double(kTileM * kTileN * kTileK);
  float* a = Scratch(x, kTileM * kTileK + kTileK * kTileN + kTileM * kTileN);
  float* b = a + kTileM * kTileK;
  float* c = b + kTileK * kTileN;
  const int64_t tiles = int64_t(s.flops / kTileFlops + 0.999999);
  for (int64_t t = 0; t < tiles; ++t) {
    Sgemm(kTileM, kTileN, kTileK, a, kTileK, b, kTileN, t > 0 ? 1.0f : 0.0f, c, kTileN);
  }
  return s.bytes;
}

Result<int64_t> Collective(const Step& s, const StepContext& x) {
  const RingComm comm{x.transport, x.rank, x.ranks, s.match, x.scratch, WireOf(s, x), x.wire_bytes};
  return RunRingCollective(s.collective, comm, x.memory->Span(s.a), x.memory->Span(s.c));
}

}  // namespace

Result<int64_t> ExecuteStep(const Step& step, const StepContext& ctx) {
  switch (step.kind) {
    case StepKind::kGemm:
      return Gemm(step, ctx);
    case StepKind::kReduce:
      return Reduce(step, ctx);
    case StepKind::kCopy:
      return Copy(step, ctx);
    case StepKind::kSend:
      return Send(step, ctx);
    case StepKind::kRecv:
      return Recv(step, ctx);
    case StepKind::kCollective:
      return Collective(step, ctx);
    case StepKind::kCompute:
      return Compute(step, ctx);
    case StepKind::kFused:
      break;  // refused before running (CpuBackend::Run)
  }
  return Status::Internal("unknown step kind");
}

}  // namespace braid::cpu
