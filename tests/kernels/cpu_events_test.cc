// The events of a cpu run: one per step, rank and timed iteration, with the
// step's identity, real bytes, and timestamps that respect deps and lanes.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "braid/cpu_backend.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using testing::MustBuild;

EventKind KindOf(StepKind k) {
  switch (k) {
    case StepKind::kGemm:
    case StepKind::kCompute:
      return EventKind::kCompute;
    case StepKind::kReduce:
      return EventKind::kReduce;
    case StepKind::kCopy:
      return EventKind::kCopy;
    default:
      return EventKind::kComm;
  }
}

// fp32 bytes this backend reports: the plan's figure, except that a ring
// collective counts what this rank really sent.
int64_t ExpectedBytes(const Plan& plan, const Step& s) {
  if (s.kind != StepKind::kCollective) return s.bytes;  // fp32 workloads only
  const int64_t p = plan.tp();
  switch (s.collective) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
      return s.bytes / p * (p - 1);
    case CollectiveKind::kAllReduce:
      return 2 * s.bytes / p * (p - 1);  // rows divisible by P here
  }
  return -1;
}

using LaneKey = std::tuple<int, int, int>;  // iteration, rank, lane

std::map<LaneKey, std::vector<const Event*>> ByLane(const std::vector<Event>& events) {
  std::map<LaneKey, std::vector<const Event*>> out;
  for (const Event& e : events) out[{e.iteration, e.rank, e.lane}].push_back(&e);
  return out;
}

void CheckEvents(const Plan& plan, const RunOutput& out, int iters) {
  ASSERT_EQ(out.events.size(), plan.total_steps() * size_t(iters));
  ASSERT_EQ(out.iteration_ns.size(), size_t(iters));
  auto lanes = ByLane(out.events);
  for (int it = 0; it < iters; ++it) {
    EXPECT_GT(out.iteration_ns[size_t(it)], 0);
    for (int r = 0; r < plan.tp(); ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      std::vector<const Event*> of_step(rp.steps.size(), nullptr);
      for (int lane = 0; lane < int(plan.lanes.size()); ++lane) {
        const auto& evs = lanes[{it, r, lane}];
        size_t next = 0;
        for (const Step& s : rp.steps) {
          if (s.lane != lane) continue;
          ASSERT_LT(next, evs.size()) << "rank " << r << " lane " << lane << " lacks step " << s.id;
          const Event& e = *evs[next++];
          of_step[size_t(s.id)] = &e;
          EXPECT_EQ(e.kind, KindOf(s.kind));
          EXPECT_EQ(e.name, s.name);
          EXPECT_EQ(e.bytes, ExpectedBytes(plan, s)) << s.name << " step " << s.id;
          EXPECT_EQ(e.flops, s.flops);
          EXPECT_EQ(e.chunk, s.chunk);
          EXPECT_EQ(e.step, s.ring_step);
          EXPECT_EQ(e.peer, s.peer);
          EXPECT_EQ(e.correlation, s.match);
          EXPECT_LE(e.start_ns, e.end_ns);
          if (next > 1) {
            EXPECT_LE(evs[next - 2]->end_ns, e.start_ns) << "a lane overlaps itself";
          }
        }
        EXPECT_EQ(next, evs.size()) << "extra events on rank " << r << " lane " << lane;
      }
      for (const Step& s : rp.steps) {
        for (int d : s.deps) {
          EXPECT_LE(of_step[size_t(d)]->end_ns, of_step[size_t(s.id)]->start_ns)
              << "rank " << r << " step " << s.id << " started before dep " << d << " ended";
        }
      }
    }
  }
}

TEST(CpuEvents, OneEventPerStepRankAndTimedIteration) {
  RunOptions o;
  o.warmup = 2;
  o.iters = 3;
  for (Algorithm algo : {Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
      const Plan plan = MustBuild(op, 24, 12, 12, 3, algo, 2, 2);
      SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
      Result<RunOutput> out = CpuBackend().Run(plan, o);
      ASSERT_TRUE(out.ok()) << out.status().message();
      CheckEvents(plan, *out, o.iters);
    }
  }
}

TEST(CpuEvents, SortedByIterationRankAndStart) {
  RunOptions o;
  o.warmup = 0;
  o.iters = 2;
  const Plan plan = MustBuild(Op::kGemmRs, 16, 8, 8, 4, Algorithm::kRing, 2, 2);
  Result<RunOutput> out = CpuBackend().Run(plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (size_t i = 1; i < out->events.size(); ++i) {
    const Event& a = out->events[i - 1];
    const Event& b = out->events[i];
    EXPECT_LE(std::tie(a.iteration, a.rank, a.start_ns), std::tie(b.iteration, b.rank, b.start_ns));
  }
  EXPECT_EQ(out->events.front().iteration, 0);
  EXPECT_EQ(out->events.back().iteration, 1);
}

TEST(CpuEvents, NoTraceMeansNoEventsButIterationTimes) {
  RunOptions o;
  o.warmup = 1;
  o.iters = 4;
  o.trace = false;
  const Plan plan = MustBuild(Op::kAgGemm, 16, 8, 8, 2, Algorithm::kRing, 2, 2);
  Result<RunOutput> out = CpuBackend().Run(plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->events.empty());
  ASSERT_EQ(out->iteration_ns.size(), 4u);
  for (int64_t ns : out->iteration_ns) EXPECT_GT(ns, 0);
}

TEST(CpuEvents, PacedTransfersLastAtLeastTheirWireTime) {
  // 64 KiB per ring transfer at 1 Gbit/s holds the sender ≥ 0.52 ms.
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  CpuBackendOptions paced;
  paced.link_gbps = 1;
  const Plan plan = MustBuild(Op::kAgGemm, 256, 8, 128, 2, Algorithm::kRing);
  Result<RunOutput> out = CpuBackend(paced).Run(plan, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  int sends = 0;
  for (const Event& e : out->events) {
    if (e.name != "send") continue;
    ++sends;
    EXPECT_GE(e.end_ns - e.start_ns, e.bytes * 8);  // bytes·8 / 1e9 s = bytes·8 ns
  }
  EXPECT_EQ(sends, 2);
}

}  // namespace
}  // namespace braid
