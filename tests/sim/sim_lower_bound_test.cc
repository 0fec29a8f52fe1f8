// The lower bound is a bound: no plan beats max(compute alone, comm alone)
// of its workload (efficiency ≤ 1), for every algorithm the planner builds
// over a grid of shapes, ops, TP degrees and comm knobs.
#include <gtest/gtest.h>

#include <string>

#include "braid/gpu_files.h"
#include "braid/lower_bound.h"
#include "braid/planner.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"

namespace braid {
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

}  // namespace
}  // namespace braid
