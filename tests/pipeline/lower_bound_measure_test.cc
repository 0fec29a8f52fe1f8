// MeasureLowerBound takes its figures the way the makespan is taken: from
// the runs' events where a backend's iteration times are the host's (cuda,
// cpu), from the iteration times where they are the makespans (sim).
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "braid/lower_bound.h"

namespace braid {
namespace {

// Every iteration: one compute or comm event per rank lasting `event_ns`,
// while the host says each iteration took `host_ns`.
class TwoClockBackend : public Backend {
 public:
  TwoClockBackend(bool iteration_times_are_makespans, int64_t event_ns, int64_t host_ns)
      : makespans_(iteration_times_are_makespans), event_ns_(event_ns), host_ns_(host_ns) {}
  std::string_view name() const override { return "two-clock"; }
  bool IterationTimesAreMakespans() const override { return makespans_; }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& o) override {
    traced_ = traced_ || o.trace;
    RunOutput out;
    for (int it = 0; it < o.iters; ++it) {
      out.iteration_ns.push_back(host_ns_);
      if (!o.trace) continue;
      for (int r = 0; r < int(plan.ranks.size()); ++r) {
        Event e;
        e.iteration = it;
        e.rank = r;
        e.kind = EventKind::kCompute;
        e.name = "step";
        e.start_ns = 1000 * it;
        e.end_ns = e.start_ns + event_ns_;
        out.events.push_back(e);
      }
    }
    return out;
  }
  bool traced() const { return traced_; }

 private:
  bool makespans_;
  int64_t event_ns_, host_ns_;
  bool traced_ = false;
};

LowerBound Measure(Backend& backend) {
  auto lb = MeasureLowerBound(
      backend, testing::MustBuildPlan({Op::kAgGemm, 64, 32, 16, DType::kBf16, 2}, OverlapConfig{}), RunOptions{});
  EXPECT_TRUE(lb.ok()) << lb.status().message();
  return lb.ok() ? *lb : LowerBound{};
}

TEST(RunPipelineLowerBound, HostTimedBackendsAreMeasuredByTheirEvents) {
  TwoClockBackend host_timed(false, 66, 176);
  const LowerBound lb = Measure(host_timed);
  EXPECT_TRUE(host_timed.traced());
  EXPECT_DOUBLE_EQ(lb.compute_alone_ns, 66);
  EXPECT_DOUBLE_EQ(lb.comm_alone_ns, 66);
}

TEST(RunPipelineLowerBound, MakespanTimedBackendsRecordNoEvents) {
  TwoClockBackend sim_like(true, 66, 176);
  const LowerBound lb = Measure(sim_like);
  EXPECT_FALSE(sim_like.traced());
  EXPECT_DOUBLE_EQ(lb.compute_alone_ns, 176);
}

}  // namespace
}  // namespace braid
