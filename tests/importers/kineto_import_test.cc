// The Kineto importer on small hand-written traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "braid/trace_import.h"
#include "test_files.h"

namespace braid {
namespace {

using testing_files::Gzip;
using testing_files::TempDir;

// Two ProfilerSteps (at 100 and 150 µs). Kernels launched before the last
// step: a GEMM on stream 7 [110.4, 130.6] -> [111, 130], an NCCL kernel on
// stream 20 [120.5, 135.5] -> [121, 135], a memcpy [140, 145]. The kernel
// launched at 151 (in the last step) is left out of the HTA figures.
constexpr const char* kTwoSteps = R"J({
  "schemaVersion": 1,
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 4},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 100.0, "dur": 50.0},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 150.0, "dur": 50.0},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 101.0, "dur": 3.0, "args": {"External id": 9}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 101.2, "dur": 2.0, "args": {"correlation": 1, "cbid": 211}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 102.5, "dur": 2.0, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 103.0, "dur": 1.0, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 151.0, "dur": 1.0, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "void gemm_kernel()", "pid": 0, "tid": 7, "ts": 110.4, "dur": 20.2,
     "args": {"device": 0, "context": 1, "stream": 7, "correlation": 1, "grid": [64, 1, 1], "est. achieved occupancy %": 4}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 20, "ts": 120.5, "dur": 15.0,
     "args": {"device": 0, "stream": 20, "correlation": 2}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 140.0, "dur": 5.0,
     "args": {"device": 0, "stream": 7, "correlation": 3, "bytes": 4096}},
    {"ph": "X", "cat": "kernel", "name": "void late_kernel()", "pid": 0, "tid": 7, "ts": 160.0, "dur": 30.0,
     "args": {"device": 0, "stream": 7, "correlation": 4}},
    {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 101.2, "cat": "ac2g", "name": "ac2g"},
    {"ph": "i", "name": "instant", "ts": 1, "s": "t"},
    {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python"}}
  ],
  "traceName": "x.json"
})J";

const Event* FindEvent(const ImportedRank& r, std::string_view name) {
  const auto it = std::find_if(r.events.begin(), r.events.end(), [&](const Event& e) { return e.name == name; });
  return it == r.events.end() ? nullptr : &*it;
}

TEST(ImportKinetoSmall, HtaFiguresFollowRoundingAndStepFilter) {
  TempDir dir;
  auto trace = ImportKineto({dir.Write("t.json", kTwoSteps)});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->ranks.size(), 1u);
  const HtaFigures& f = trace->ranks[0].hta;
  EXPECT_EQ(f.compute, 19);  // [111, 130]
  EXPECT_EQ(f.comm, 14);     // [121, 135]
  EXPECT_EQ(f.overlap, 9);   // [121, 130]
  EXPECT_DOUBLE_EQ(f.overlap_pct, 64.29);
  EXPECT_DOUBLE_EQ(f.idle_pct, 14.71);     // span [111, 145] = 34, busy 24 + 5
  EXPECT_DOUBLE_EQ(f.compute_pct, 55.88);  // 19 / 34
}

TEST(ImportKinetoSmall, OneStepMeansNoFilter) {
  std::string one_step = kTwoSteps;
  one_step.replace(one_step.find("ProfilerStep#4"), 14, "ProfilerStep#3");  // both ranges now share one name
  TempDir dir;
  auto trace = ImportKineto({dir.Write("t.json", one_step)});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->ranks[0].hta.compute, 19 + 30);  // the late kernel counts
  EXPECT_DOUBLE_EQ(trace->ranks[0].hta.compute_pct, HtaPercent(49, 190 - 111));
}

TEST(ImportKinetoSmall, EventsLanesKindsAndIterations) {
  TempDir dir;
  auto trace = ImportKineto({dir.Write("t.json", kTwoSteps)});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const ImportedRank& r = trace->ranks[0];
  EXPECT_EQ(trace->format, "kineto");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.world, 4);
  EXPECT_EQ(r.device, 0);
  ASSERT_EQ(r.lanes.size(), 3u);
  EXPECT_EQ(r.lanes[0].name, "stream 7");
  EXPECT_EQ(r.lanes[1].name, "stream 20");
  EXPECT_EQ(r.lanes[2].name, "cpu runtime");
  ASSERT_EQ(r.events.size(), 8u);  // 4 GPU events + 4 runtime calls; all kept
  EXPECT_TRUE(std::is_sorted(r.events.begin(), r.events.end(),
                             [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; }));

  const Event* gemm = FindEvent(r, "void gemm_kernel()");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, EventKind::kCompute);
  EXPECT_EQ(gemm->lane, 0);
  EXPECT_EQ(gemm->rank, 1);
  EXPECT_EQ(gemm->start_ns, 110400);  // µs -> ns, not rounded to µs
  EXPECT_EQ(gemm->end_ns, 130600);
  EXPECT_EQ(gemm->correlation, 1);
  EXPECT_EQ(gemm->iteration, 0);

  const Event* nccl = FindEvent(r, "ncclKernel_AllReduce_RING_LL_Sum_float");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->kind, EventKind::kComm);
  EXPECT_EQ(nccl->lane, 1);

  const Event* copy = FindEvent(r, "Memcpy HtoD (Pinned -> Device)");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, EventKind::kCopy);
  EXPECT_EQ(copy->bytes, 4096);

  const Event* late = FindEvent(r, "void late_kernel()");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->iteration, 1);  // launched in the second step

  const Event* launch = FindEvent(r, "cuLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->kind, EventKind::kMarker);
  EXPECT_EQ(launch->lane, 2);
  EXPECT_EQ(launch->correlation, 4);
  EXPECT_EQ(launch->iteration, 1);
}

TEST(ImportKinetoSmall, GemmOpsWithTheirDimsGoOnTheCpuOpsLane) {
  // record_shapes=True: each op's "Input Dims". Only the GEMM ops with dims
  // are kept (braid/gemm_keys.h), on their own lane, as markers named with
  // their dims; batched matmuls and ops without dims are not.
  constexpr const char* kOps = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 99.0, "dur": 9.0,
     "args": {"External id": 8, "Input Dims": [[4, 2, 4096], [1536, 4096], []], "Input type": ["c10::BFloat16"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100.0, "dur": 5.0,
     "args": {"Input Dims": [[8, 4096], [4096, 1536]], "External id": 9}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 106.0, "dur": 1.0,
     "args": {"Input Dims": [[2, 8, 4], [2, 4, 8]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 107.0, "dur": 1.0, "args": {}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 108.0, "dur": 1.0,
     "args": {"Input Dims": "not dims"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 101.0, "dur": 2.0,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256", "pid": 0, "tid": 7, "ts": 110.0, "dur": 20.0,
     "args": {"device": 0, "stream": 7, "correlation": 1}}
  ]})J";
  TempDir dir;
  auto trace = ImportKineto({dir.Write("ops.json", kOps)});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const ImportedRank& r = trace->ranks[0];
  ASSERT_EQ(r.lanes.size(), 3u);
  EXPECT_EQ(r.lanes[2].name, "cpu ops");
  std::vector<std::string> ops;
  for (const Event& e : r.events) {
    if (e.lane == 2) {
      EXPECT_EQ(e.kind, EventKind::kMarker);
      ops.push_back(e.name);
    }
  }
  EXPECT_EQ(ops,
            (std::vector<std::string>{"aten::linear [[4,2,4096],[1536,4096],[]]", "aten::mm [[8,4096],[4096,1536]]"}));
  const Event* mm = FindEvent(r, "aten::mm [[8,4096],[4096,1536]]");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->start_ns, 100000);
  EXPECT_EQ(mm->end_ns, 105000);
}

TEST(ImportKinetoSmall, GzipGivesTheSameResult) {
  TempDir dir;
  auto plain = ImportKineto({dir.Write("t.json", kTwoSteps)});
  auto gz = ImportKineto({dir.Write("t.json.gz", Gzip(kTwoSteps))});
  ASSERT_TRUE(plain.ok() && gz.ok()) << gz.status().message();
  EXPECT_EQ(plain->ranks[0].events.size(), gz->ranks[0].events.size());
  EXPECT_EQ(plain->ranks[0].hta.overlap, gz->ranks[0].hta.overlap);
  // Content decides, not the file name.
  auto gz_named_json = ImportKineto({dir.Write("u.json", Gzip(kTwoSteps))});
  ASSERT_TRUE(gz_named_json.ok()) << gz_named_json.status().message();
  // Concatenated gzip members read as one stream.
  const std::string text = kTwoSteps;
  const size_t half = text.size() / 2;
  auto two_members = ImportKineto({dir.Write("v.json.gz", Gzip(text.substr(0, half)) + Gzip(text.substr(half)))});
  ASSERT_TRUE(two_members.ok()) << two_members.status().message();
  EXPECT_EQ(two_members->ranks[0].hta.comm, 14);
}

TEST(ImportKinetoSmall, RanksFromFileOrderWithoutDistributedInfo) {
  std::string plain = kTwoSteps;
  const size_t at = plain.find("\"distributedInfo\"");
  plain.erase(at, plain.find('}', at) + 2 - at);
  TempDir dir;
  const std::string a = dir.Write("a.json", plain);
  const std::string b = dir.Write("b.json", plain);
  auto trace = ImportKineto({a, b});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->ranks.size(), 2u);
  EXPECT_EQ(trace->ranks[0].rank, 0);
  EXPECT_EQ(trace->ranks[1].rank, 1);
  EXPECT_EQ(trace->ranks[1].world, 2);
  for (const Event& e : trace->ranks[1].events) EXPECT_EQ(e.rank, 1);
}

TEST(ImportKinetoSmall, IntegerTimestampsAndExcludedKernels) {
  constexpr const char* kInts = R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "void k()", "ts": 1000, "dur": 10, "args": {"stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "Stream Wait Event", "ts": 1020, "dur": 10, "args": {"stream": 7, "correlation": 2}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": 1005, "dur": 2, "args": {"stream": 8, "correlation": 3, "bytes": 64}}
  ]})J";
  TempDir dir;
  auto trace = ImportKineto({dir.Write("t.json", kInts)});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const ImportedRank& r = trace->ranks[0];
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.world, 1);
  EXPECT_EQ(r.device, -1);        // no "device" arg
  EXPECT_EQ(r.lanes.size(), 2u);  // two streams, no runtime calls
  EXPECT_EQ(r.hta.compute, 10);
  EXPECT_DOUBLE_EQ(r.hta.idle_pct, HtaPercent(10, 30));  // span [1000, 1030], busy 20
  const Event* wait = FindEvent(r, "Stream Wait Event");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->kind, EventKind::kSync);
  EXPECT_EQ(wait->start_ns, 1020000);
}

}  // namespace
}  // namespace braid
