// Internal helpers shared by the planners: buffers, steps, bytes and FLOPs.
#pragma once

#include <string>
#include <vector>

#include "braid/plan.h"

namespace braid::detail {

// Where one op's steps go inside a (possibly shared) plan. The default is a
// single-op plan. A layer plan emits several ops into one Plan: each gets a
// buffer-name prefix ("qkv."), its Plan::ops index, and a base added to every
// match id so that transfers and collectives of different ops never collide.
// Step ids need no offset: they are indices into the rank's shared step list.
struct OpScope {
  std::string prefix;
  int op = 0;
  int64_t match_base = 0;
  int comm_lane_shift = 0;  // collective planner: chunk i runs on comm lane 1 + (i + shift) % S
};

// Builds one rank's steps. Step ids are indices; deps must name earlier steps.
class RankBuilder {
 public:
  // `comm`: what this op's transfers move (CommDType(w, config)).
  RankBuilder(const Workload& w, DType comm, RankPlan* rp, const OpScope* scope = nullptr)
      : w_(w), comm_(comm), rp_(rp), scope_(scope != nullptr ? *scope : OpScope{}) {}

  BufferId AddBuffer(std::string name, int64_t rows, int64_t cols, BufferRole role, InputWindow input = {});
  int64_t Cols(BufferId b) const { return rp_->buffers[size_t(b)].cols; }
  Region Whole(BufferId b) const { return Region::Rows(b, 0, rp_->buffers[size_t(b)].rows); }

  int Gemm(int lane, Region a, BufferId b, Region c, std::vector<int> deps, int chunk, int ring_step);
  int Send(int lane, Region a, int peer, int64_t match, std::vector<int> deps, int chunk, int ring_step);
  int Recv(int lane, Region c, int peer, int64_t match, std::vector<int> deps, int chunk, int ring_step);
  int Reduce(int lane, Region c, Region a, Region b, std::vector<int> deps, int chunk, int ring_step);
  int Collective(int lane, CollectiveKind kind, Region a, Region c, int64_t match, std::vector<int> deps, int chunk);
  // The fused kernel (StepKind::kFused): kind all_gather (ag_gemm) or
  // reduce_scatter (gemm_rs); a, b, c as for a gemm of that pattern.
  int Fused(int lane, CollectiveKind kind, Region a, BufferId b, Region c, int64_t match, std::vector<int> deps);
  // A compute kernel with no buffers (attention).
  int Compute(int lane, std::string name, double flops, int64_t bytes, std::vector<int> deps, int chunk);

 private:
  int Add(Step s, std::vector<int> deps);
  int64_t Bytes(const Region& r, DType d) const;
  // What a GEMM writes or a reduction reads and writes: the output dtype.
  int64_t OutBytes(const Region& r) const;
  // What a transfer moves: comm_ (FP8 A for an all-gather by default).
  int64_t CommBytes(const Region& r) const;
  const Workload& w_;
  DType comm_;
  RankPlan* rp_;
  OpScope scope_;
};

// Drops negative ids (meaning "no such step") from a dependency list.
std::vector<int> Deps(std::initializer_list<int> ids);

inline int Mod(int a, int p) { return ((a % p) + p) % p; }

// Standard lanes: 0 = compute, 1..S = comm.
std::vector<Lane> MakeLanes(const OverlapConfig& cfg);

// The per-rank buffers and output window every op starts from.
struct OpBuffers {
  BufferId a = -1;    // ag_gemm: A_full (M×K, own block filled); else A shard (M×K/P)
  BufferId b = -1;    // B shard
  BufferId out = -1;  // output
};
OpBuffers AddOpBuffers(const Workload& w, int rank, RankBuilder& rb, RankPlan& rp);

// Both append to every rank of `plan`, scoped by `scope` (default: a single-op plan).
Status BuildCollectivePlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope = {});
Status BuildRingPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope = {});
// direct: P−1 transfers straight between each pair of ranks (direct_planner.cc).
Status BuildDirectPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope = {});
// a2a / a2a_direct: Ulysses all-to-alls beside GEMMs with a replicated B
// (ulysses_planner.cc).
Status BuildUlyssesPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope = {});
// fused: one kFused step per rank (P == 1: a plain GEMM).
Status BuildFusedPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan, const OpScope& scope = {});

}  // namespace braid::detail
