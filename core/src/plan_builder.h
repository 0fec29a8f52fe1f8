// Internal helpers shared by the planners: buffers, steps, bytes and FLOPs.
#pragma once

#include <string>
#include <vector>

#include "braid/plan.h"

namespace braid::detail {

// Builds one rank's steps. Step ids are indices; deps must name earlier steps.
class RankBuilder {
 public:
  RankBuilder(const Workload& w, RankPlan* rp) : w_(w), rp_(rp) {}

  BufferId AddBuffer(std::string name, int64_t rows, int64_t cols, BufferRole role,
                     InputWindow input = {});
  int64_t Cols(BufferId b) const { return rp_->buffers[size_t(b)].cols; }
  Region Whole(BufferId b) const { return Region::Rows(b, 0, rp_->buffers[size_t(b)].rows); }

  int Gemm(int lane, Region a, BufferId b, Region c, std::vector<int> deps, int chunk, int ring_step);
  int Send(int lane, Region a, int peer, int64_t match, std::vector<int> deps, int chunk, int ring_step);
  int Recv(int lane, Region c, int peer, int64_t match, std::vector<int> deps, int chunk, int ring_step);
  int Reduce(int lane, Region c, Region a, Region b, std::vector<int> deps, int chunk, int ring_step);
  int Collective(int lane, CollectiveKind kind, Region a, Region c, int64_t match,
                 std::vector<int> deps, int chunk);

 private:
  int Add(Step s, std::vector<int> deps);
  int64_t Bytes(const Region& r) const;
  const Workload& w_;
  RankPlan* rp_;
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

Status BuildCollectivePlan(const Workload& w, const OverlapConfig& cfg, Plan& plan);
Status BuildRingPlan(const Workload& w, const OverlapConfig& cfg, Plan& plan);

}  // namespace braid::detail
