// The lower bound is a bound: no plan beats max(compute alone, comm alone)
// of its workload (efficiency ≤ 1), for every algorithm the planner builds
// over a grid of shapes, ops, TP degrees and comm knobs.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include "braid/gpu_files.h"
#include "braid/lower_bound.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid {
namespace sim_lower_bound_test {
namespace {

double Makespan(SimBackend& b, const Plan& p) {
  auto t = b.Evaluate(p);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? double(*t) : 0;
}

TEST(SimLowerBound, NoPlanBeatsTheLowerBound) {
  SimBackend b(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm"));
  RunOptions o;
  o.warmup = 0;
  o.iters = 1;
  int checked = 0, fused = 0;
  for (Op op : {Op::kAgGemm, Op::kGemmRs, Op::kGemmAr}) {
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{2048, 8192, 8192},
                           {4096, 1280, 8192},
                           {8192, 8192, 8192},
                           {1024, 8192, 3584},
                           {16384, 8192, 28672},
                           {512, 4096, 4096}}) {
      for (int tp : {2, 4, 8}) {
        const Workload w{op, m, n, k, DType::kBf16, tp};
        auto serial = BuildPlan(w, OverlapConfig{});
        ASSERT_TRUE(serial.ok()) << serial.status().message();
        auto lb = MeasureLowerBound(b, *serial, o);
        ASSERT_TRUE(lb.ok()) << lb.status().message();
        for (Algorithm algo :
             {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kFused}) {
          for (int chunks : {1, 2, 4}) {
            for (int sms : {0, 4, 16, 48}) {
              for (CommEngine engine : {CommEngine::kSm, CommEngine::kCopyEngine}) {
                OverlapConfig c;
                c.algorithm = algo;
                c.chunks = chunks;
                c.comm_sms = sms;
                c.comm_engine = engine;
                auto plan = BuildPlan(w, c);
                if (!plan.ok()) continue;  // not a valid combination
                const double t = Makespan(b, *plan);
                EXPECT_LE(lb->lower_bound_ns(), t * (1 + 1e-9))
                    << OpName(op) << " " << m << "x" << n << "x" << k << " tp" << tp << " " << c.Describe()
                    << ": efficiency " << lb->lower_bound_ns() / t;
                ++checked;
                fused += algo == Algorithm::kFused;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
  EXPECT_GT(fused, 50);
}

// The fused model at its most optimistic GPU-file figures (a GEMM loop as
// fast as the chosen kernel, comm CTAs with no rate limit of their own) and
// with a slower loop, over comm-SM budgets from 1 SM to all but one: the
// link, the collective and the GEMM on the SMs left still bound it.
TEST(SimLowerBound, FusedParametersNeverBeatTheLowerBound) {
  int checked = 0;
  for (const char* topo : {"h100-sxm", "a100-sxm"}) {
    const Topology t = *LoadTopology(topo);
    for (auto [efficiency, transfer] : {std::pair{1.0, 1e5}, {1.0, 0.0}, {0.7, 15.0}}) {
      GpuSpec g = *LoadGpu(t.gpu);
      g.fused_gemm_efficiency = efficiency;
      g.fused_sm_transfer_gbs = transfer;
      SimBackend b(g, t);
      RunOptions o;
      o.warmup = 0;
      o.iters = 1;
      for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
        for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{2048, 8192, 8192},
                               {4096, 1280, 8192},
                               {16384, 8192, 28672},
                               {512, 4096, 4096}}) {
          for (int tp : {2, 8}) {
            const Workload w{op, m, n, k, DType::kBf16, tp};
            auto lb = MeasureLowerBound(b, *BuildPlan(w, OverlapConfig{}), o);
            ASSERT_TRUE(lb.ok()) << lb.status().message();
            for (int sms : {1, 2, 8, 24, 32, 64, 100, g.sm_count - 1}) {
              OverlapConfig c;
              c.algorithm = Algorithm::kFused;
              c.comm_sms = sms;
              auto plan = BuildPlan(w, c);
              ASSERT_TRUE(plan.ok()) << plan.status().message();
              const double ns = Makespan(b, *plan);
              EXPECT_LE(lb->lower_bound_ns(), ns * (1 + 1e-9))
                  << topo << " " << OpName(op) << " " << m << "x" << n << "x" << k << " tp" << tp << " " << c.Describe()
                  << " fused_gemm_efficiency " << efficiency << " fused_sm_transfer_gbs " << transfer << ": efficiency "
                  << lb->lower_bound_ns() / ns;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 3 * 2 * 4 * 2 * 8);
}

}  // namespace
}  // namespace sim_lower_bound_test
}  // namespace braid
