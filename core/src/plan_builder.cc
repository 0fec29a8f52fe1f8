#include "plan_builder.h"

#include <utility>

namespace braid::detail {

BufferId RankBuilder::AddBuffer(std::string name, int64_t rows, int64_t cols, BufferRole role, InputWindow input) {
  rp_->buffers.push_back({scope_.prefix + std::move(name), rows, cols, role, input, scope_.op});
  return BufferId(rp_->buffers.size() - 1);
}

int64_t RankBuilder::Bytes(const Region& r, DType d) const { return r.total_rows() * Cols(r.buffer) * DTypeBytes(d); }
int64_t RankBuilder::OutBytes(const Region& r) const { return Bytes(r, w_.OutDType()); }
int64_t RankBuilder::CommBytes(const Region& r) const { return Bytes(r, comm_); }

int RankBuilder::Add(Step s, std::vector<int> deps) {
  s.id = int(rp_->steps.size());
  s.deps = std::move(deps);
  s.op = scope_.op;
  if (s.match >= 0) s.match += scope_.match_base;
  // Layer plans name each step after its op ("fc2.dgrad.gemm"), so that a
  // trace of a whole block says which GEMM and pass every slice belongs to;
  // compute steps already carry their op's name.
  if (!scope_.prefix.empty() && s.kind != StepKind::kCompute) s.name = scope_.prefix + s.name;
  rp_->steps.push_back(std::move(s));
  return rp_->steps.back().id;
}

int RankBuilder::Gemm(int lane, Region a, BufferId b, Region c, std::vector<int> deps, int chunk, int ring_step) {
  Step s;
  s.kind = StepKind::kGemm;
  s.lane = lane;
  s.name = "gemm";
  s.a = a;
  s.b = Whole(b);
  s.c = c;
  s.chunk = chunk;
  s.ring_step = ring_step;
  s.flops = 2.0 * double(a.total_rows()) * double(Cols(b)) * double(Cols(a.buffer));
  s.bytes = OutBytes(c);
  return Add(std::move(s), std::move(deps));
}

int RankBuilder::Send(int lane, Region a, int peer, int64_t match, std::vector<int> deps, int chunk, int ring_step) {
  Step s;
  s.kind = StepKind::kSend;
  s.lane = lane;
  s.name = "send";
  s.a = a;
  s.peer = peer;
  s.match = match;
  s.chunk = chunk;
  s.ring_step = ring_step;
  s.bytes = CommBytes(a);
  return Add(std::move(s), std::move(deps));
}

int RankBuilder::Recv(int lane, Region c, int peer, int64_t match, std::vector<int> deps, int chunk, int ring_step) {
  Step s;
  s.kind = StepKind::kRecv;
  s.lane = lane;
  s.name = "recv";
  s.c = c;
  s.peer = peer;
  s.match = match;
  s.chunk = chunk;
  s.ring_step = ring_step;
  s.bytes = CommBytes(c);
  return Add(std::move(s), std::move(deps));
}

int RankBuilder::Reduce(int lane, Region c, Region a, Region b, std::vector<int> deps, int chunk, int ring_step) {
  Step s;
  s.kind = StepKind::kReduce;
  s.lane = lane;
  s.name = "add";
  s.a = a;
  s.b = b;
  s.c = c;
  s.chunk = chunk;
  s.ring_step = ring_step;
  s.bytes = 3 * OutBytes(c);  // two reads, one write (partial sums: the output dtype)
  s.flops = double(c.total_rows()) * double(Cols(c.buffer));
  return Add(std::move(s), std::move(deps));
}

int RankBuilder::Collective(int lane, CollectiveKind kind, Region a, Region c, int64_t match, std::vector<int> deps,
                            int chunk) {
  Step s;
  s.kind = StepKind::kCollective;
  s.collective = kind;
  s.lane = lane;
  s.name = std::string(CollectiveName(kind));
  s.a = a;
  s.c = c;
  s.match = match;
  s.chunk = chunk;
  // NCCL's convention: the size of the larger (gathered / unscattered) side.
  s.bytes = kind == CollectiveKind::kAllGather ? CommBytes(c) : CommBytes(a);
  if (kind != CollectiveKind::kAllGather) s.flops = double(a.total_rows()) * double(Cols(a.buffer));
  return Add(std::move(s), std::move(deps));
}

int RankBuilder::Fused(int lane, CollectiveKind kind, Region a, BufferId b, Region c, int64_t match,
                       std::vector<int> deps) {
  Step s;
  s.kind = StepKind::kFused;
  s.collective = kind;
  s.lane = lane;
  s.name = "fused";
  s.a = a;
  s.b = Whole(b);
  s.c = c;
  s.match = match;
  s.chunk = 0;
  const int64_t p = w_.tp;
  // The rank's whole GEMM: all M rows (ag_gemm) or its shard of K (gemm_rs).
  const int64_t m = kind == CollectiveKind::kAllGather ? a.total_rows() * p : a.total_rows();
  s.flops = 2.0 * double(m) * double(Cols(b)) * double(Cols(a.buffer));
  // Sent: its block of A to each of the P−1 peers, or the P−1 peers' blocks
  // of its partial C.
  const int64_t block = kind == CollectiveKind::kAllGather ? CommBytes(a) : CommBytes(c);
  s.bytes = (p - 1) * block;
  return Add(std::move(s), std::move(deps));
}

int RankBuilder::Compute(int lane, std::string name, double flops, int64_t bytes, std::vector<int> deps, int chunk) {
  Step s;
  s.kind = StepKind::kCompute;
  s.lane = lane;
  s.name = std::move(name);
  s.chunk = chunk;
  s.flops = flops;
  s.bytes = bytes;
  return Add(std::move(s), std::move(deps));
}

std::vector<int> Deps(std::initializer_list<int> ids) {
  std::vector<int> out;
  for (int id : ids) {
    if (id >= 0) out.push_back(id);
  }
  return out;
}

std::vector<Lane> MakeLanes(const OverlapConfig& cfg) {
  std::vector<Lane> lanes;
  lanes.push_back({"compute", LaneKind::kCompute, 0});
  for (int i = 0; i < cfg.comm_lanes; ++i) {
    lanes.push_back({"comm" + std::to_string(i), LaneKind::kComm, cfg.comm_high_priority ? 1 : 0});
  }
  return lanes;
}

OpBuffers AddOpBuffers(const Workload& w, int r, RankBuilder& rb, RankPlan& rp) {
  const int64_t p = w.tp;
  OpBuffers ob;
  if (w.op == Op::kAgGemm) {
    const int64_t mb = w.m / p, nb = w.n / p;
    ob.a = rb.AddBuffer("A_full", w.m, w.k, BufferRole::kInput, {Matrix::kA, r * mb, mb, 0, w.k, r * mb});
    ob.b = rb.AddBuffer("B_shard", w.k, nb, BufferRole::kInput, {Matrix::kB, 0, w.k, r * nb, nb, 0});
    ob.out = rb.AddBuffer("C", w.m, nb, BufferRole::kOutput);
    rp.output_window = {0, w.m, r * nb, nb};
  } else {
    const int64_t kb = w.k / p;
    ob.a = rb.AddBuffer("A_shard", w.m, kb, BufferRole::kInput, {Matrix::kA, 0, w.m, r * kb, kb, 0});
    ob.b = rb.AddBuffer("B_shard", kb, w.n, BufferRole::kInput, {Matrix::kB, r * kb, kb, 0, w.n, 0});
    if (w.op == Op::kGemmRs) {
      const int64_t mb = w.m / p;
      ob.out = rb.AddBuffer("C", mb, w.n, BufferRole::kOutput);
      rp.output_window = {r * mb, mb, 0, w.n};
    } else {
      ob.out = rb.AddBuffer("C", w.m, w.n, BufferRole::kOutput);
      rp.output_window = {0, w.m, 0, w.n};
    }
  }
  rp.output = ob.out;
  return ob;
}

}  // namespace braid::detail
