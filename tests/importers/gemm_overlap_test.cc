// Per-GEMM overlap (braid/gemm_overlap.h) on hand-made events: how GEMM
// kernels group, where communication goes, the method and verdict, labels
// from named ranges, and ranks and iterations kept apart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/gemm_overlap.h"

namespace braid {
namespace {

const char* kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
const char* kOtherGemm = "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN";
const char* kNcclRs = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
const char* kUbRs = "void userbuffers_fp16_sum_inplace_gpu_rr_rs_oop<4>(int)";
const char* kUbSend = "kuserbuffers_pushsend(int*, int*, int4*, int4*, int)";

Event Ev(const std::string& name, EventKind kind, int64_t start_us, int64_t dur_us, int lane = 0, int rank = 0,
         int iteration = 0) {
  Event e;
  e.name = name;
  e.kind = kind;
  e.start_ns = start_us * 1000;
  e.end_ns = (start_us + dur_us) * 1000;
  e.lane = lane;
  e.rank = rank;
  e.iteration = iteration;
  return e;
}

Event Gemm(int64_t start, int64_t dur, const char* name = kGemm) { return Ev(name, EventKind::kCompute, start, dur); }
Event Comm(const char* name, int64_t start, int64_t dur) { return Ev(name, EventKind::kComm, start, dur, 1); }

TEST(GemmOverlap, ChunksOfOneGemmAreOneAndOtherWorkSplitsThem) {
  const std::vector<Event> events = {
      Gemm(0, 100),
      Gemm(100, 100),
      Ev("void cast_fp8_kernel(float*)", EventKind::kCompute, 200, 5),  // short: same GEMM
      Gemm(205, 100),
      Ev("flash_fwd_kernel", EventKind::kCompute, 305, 200),  // attention: a new GEMM after it
      Gemm(505, 100),
      Gemm(605, 50, kOtherGemm),  // another kernel: another GEMM
  };
  const GemmOverlapReport r = AnalyzeGemmOverlap(events);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].kernels, 3);
  EXPECT_EQ(r.rows[0].gemm_ns, 300'000);
  EXPECT_EQ(r.rows[1].kernels, 1);
  EXPECT_EQ(r.rows[2].kernel, kOtherGemm);
  for (const GemmOverlapRow& row : r.rows) EXPECT_EQ(row.verdict, GemmVerdict::kNoComm);
}

TEST(GemmOverlap, CommGoesToTheGemmItOverlapsMostElseTheNearest) {
  const std::vector<Event> events = {
      Gemm(0, 100),
      Comm(kNcclRs, 100, 50),  // after GEMM 0: its reduce-scatter
      Ev("flash_fwd_kernel", EventKind::kCompute, 160, 100),
      Gemm(300, 100),           // GEMM 1
      Comm(kNcclRs, 350, 100),  // mostly beside GEMM 1... and past its end
  };
  const GemmOverlapReport r = AnalyzeGemmOverlap(events);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].comm_ns, 50'000);
  EXPECT_EQ(r.rows[0].overlapped_ns, 0);
  EXPECT_EQ(r.rows[0].method, OverlapMethod::kNone);
  EXPECT_EQ(r.rows[0].verdict, GemmVerdict::kNotOverlapped);
  EXPECT_EQ(r.rows[1].comm_ns, 100'000);
  EXPECT_EQ(r.rows[1].overlapped_ns, 50'000);
  EXPECT_EQ(r.rows[1].exposed_ns, 50'000);
  EXPECT_EQ(r.rows[1].method, OverlapMethod::kBulk);  // one kernel with a collective beside it
  EXPECT_EQ(r.rows[1].verdict, GemmVerdict::kPartly);
  EXPECT_EQ(r.comm_events, 2);
}

TEST(GemmOverlap, MethodsAndVerdicts) {
  // TE pipeline: chunks with userbuffers reduce-scatters; all beside the
  // chunks but the tail.
  std::vector<Event> pipeline = {Gemm(0, 100),         Comm(kUbRs, 100, 50), Gemm(100, 100),
                                 Comm(kUbRs, 200, 50), Gemm(200, 100),       Comm(kUbRs, 300, 5)};
  GemmOverlapReport r = AnalyzeGemmOverlap(pipeline);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].method, OverlapMethod::kPipeline);
  EXPECT_EQ(r.rows[0].verdict, GemmVerdict::kOverlapped);  // 100 of 105 µs
  ASSERT_EQ(r.rows[0].libraries.size(), 1u);
  EXPECT_EQ(r.rows[0].libraries[0], CommLibrary::kTeUserbuffers);
  // The same configured, not fired: every transfer between the chunks.
  std::vector<Event> serial = {Gemm(0, 100), Comm(kUbSend, 100, 50), Gemm(150, 100), Comm(kUbSend, 250, 50),
                               Gemm(300, 100)};
  r = AnalyzeGemmOverlap(serial);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].method, OverlapMethod::kRing);
  EXPECT_EQ(r.rows[0].verdict, GemmVerdict::kNotOverlappedAlthoughConfigured);
  // Copy-engine peer copies beside chunks: async-TP.
  std::vector<Event> async_tp = {Gemm(0, 100), Comm("Memcpy PtoP (Device -> Device)", 10, 50), Gemm(100, 100)};
  r = AnalyzeGemmOverlap(async_tp);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].method, OverlapMethod::kAsyncTp);
  EXPECT_EQ(r.rows[0].verdict, GemmVerdict::kOverlapped);
}

TEST(GemmOverlap, NcclAfterGemmsOfOneShapeConfiguredNothing) {
  // A model's layers of one shape back to back, then a collective: no
  // overlap was set up, and the verdict does not claim one.
  const std::vector<Event> events = {Gemm(0, 100), Gemm(100, 100), Comm(kNcclRs, 200, 80)};
  const GemmOverlapReport r = AnalyzeGemmOverlap(events);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].method, OverlapMethod::kNone);
  EXPECT_EQ(r.rows[0].verdict, GemmVerdict::kNotOverlapped);
}

TEST(GemmOverlap, RanksAndIterationsAreApartAndCommWithoutAGemmIsCounted) {
  std::vector<Event> events = {Ev(kGemm, EventKind::kCompute, 0, 100, 0, 0, 1),
                               Ev(kGemm, EventKind::kCompute, 0, 100, 0, 1, 1),
                               Ev(kNcclRs, EventKind::kComm, 10, 50, 1, 1, 1),
                               Ev(kNcclRs, EventKind::kComm, 500, 50, 1, 1, 2)};  // iteration 2 has no GEMM
  const GemmOverlapReport r = AnalyzeGemmOverlap(events);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].rank, 0);
  EXPECT_EQ(r.rows[0].verdict, GemmVerdict::kNoComm);
  EXPECT_EQ(r.rows[1].rank, 1);
  EXPECT_EQ(r.rows[1].verdict, GemmVerdict::kOverlapped);
  EXPECT_EQ(r.comm_events, 2);
  EXPECT_EQ(r.unassigned_comm, 1);
}

TEST(GemmOverlap, LabelsComeFromTheInnermostNamedRange) {
  std::vector<Event> events = {Gemm(0, 100), Gemm(300, 100, kOtherGemm)};
  events[0].correlation = 7;
  events[1].correlation = 8;
  // GPU-clock ranges: the step (never a label), a layer, its fprop.
  events.push_back(Ev("ProfilerStep#3", EventKind::kMarker, -10, 500, 5));
  events.push_back(Ev("layer.0", EventKind::kMarker, -5, 200, 5));
  events.push_back(Ev("qkv_fprop", EventKind::kMarker, -1, 150, 5));
  // Host ranges hold kernel 2 by its launch call's time (correlation 8).
  Event launch = Ev("cudaLaunchKernel", EventKind::kMarker, 250, 2, 6);
  launch.correlation = 8;
  events.push_back(launch);
  events.push_back(Ev("transformer_engine._Linear.forward.fc1.gemm", EventKind::kMarker, 240, 20, 7));
  const std::vector<TraceLane> lanes = {{0, 5, std::string(kGpuRangeLaneName)},
                                        {0, 6, std::string(kRuntimeLaneName)},
                                        {0, 7, std::string(kNvtxLaneName)}};
  const GemmOverlapReport r = AnalyzeGemmOverlap(events, lanes);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].label, "qkv_fprop");
  EXPECT_EQ(r.rows[1].label, "transformer_engine._Linear.forward.fc1.gemm");
  // Without lanes, markers label nothing.
  const GemmOverlapReport bare = AnalyzeGemmOverlap(events);
  EXPECT_EQ(bare.rows[0].label, "");
}

TEST(GemmOverlap, NamesOfMethodsAndVerdicts) {
  EXPECT_EQ(OverlapMethodName(OverlapMethod::kAsyncTp), "async_tp");
  EXPECT_EQ(GemmVerdictName(GemmVerdict::kNotOverlappedAlthoughConfigured), "not_overlapped_although_configured");
}

}  // namespace
}  // namespace braid
