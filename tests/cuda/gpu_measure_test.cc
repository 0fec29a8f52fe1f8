// `braid calibrate --measure`'s library (braid/gpu_measure.h) driven through
// the model-driven fake device: the plan, the median loop, the CSV files in
// h100-measured's layout, progress, failures and the fit of what the fake
// measured. The shared data folder's measurements are only compared with when
// present.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "braid/gpu_files.h"
#include "braid/gpu_measure.h"
#include "braid/gpu_measure_fake.h"
#include "braid/sim_kernel_log.h"
#include "braid/sim_measured.h"
#include "braid/sim_models.h"
#include "shared_dir.h"
#include "temp_dir.h"

namespace braid::measure {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

GpuSpec H100() { return *LoadGpu("h100-sxm"); }

// A board unlike the shipped file: slower, weaker SM copies, less HBM.
GpuSpec OtherBoard() {
  GpuSpec g = H100();
  g.board_rate = 0.85;
  g.sm_copy_gbs = 61.5;
  g.hbm_efficiency = 0.8;
  return g;
}

std::vector<std::string> Lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

using testing_files::TempDir;

TEST(GpuMeasurePlan, TheDefaultGridIsH100MeasuredsGrid) {
  const MeasurePlan p = DefaultMeasurePlan(132, false);
  EXPECT_TRUE(CheckMeasurePlan(p, 132).ok());
  EXPECT_EQ(p.gemm_shapes.size(), 20u);
  EXPECT_EQ(p.held_shapes.size(), 4u);  // h100-measured's 3 and the row the sim misses
  EXPECT_TRUE(p.log_kernels);
  EXPECT_THAT(p.held_sms, ElementsAre(0, 4, 8, 16, 24, 32, 48, 66));
  EXPECT_THAT(p.copy_sms, ElementsAre(1, 2, 4, 8, 16, 24, 32, 48, 64, 132));
  // A100: half of its SMs, and all of them.
  const MeasurePlan a = DefaultMeasurePlan(108, false);
  EXPECT_THAT(a.held_sms, ElementsAre(0, 4, 8, 16, 24, 32, 48, 54));
  EXPECT_EQ(a.copy_sms.back(), 108);
  EXPECT_TRUE(CheckMeasurePlan(a, 108).ok());
  const MeasurePlan q = DefaultMeasurePlan(132, true);
  EXPECT_TRUE(CheckMeasurePlan(q, 132).ok());
  EXPECT_LT(q.gemm_shapes.size(), p.gemm_shapes.size());
  EXPECT_LT(q.iterations, p.iterations);
  // The shapes are the shared file's, in its order.
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedMeasured);
  const fs::path shared = testing_shared::SharedPath(testing_shared::kSharedMeasured);
  const auto lines = Lines(shared / "gemm_bf16.csv");
  ASSERT_EQ(lines.size(), 21u);
  for (size_t i = 0; i < 20; ++i) {
    const GemmShape& s = p.gemm_shapes[i];
    const std::string dims = std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k) + ",";
    EXPECT_EQ(lines[i + 1].rfind(dims, 0), 0u) << lines[i + 1];
  }
}

// Minutes, not hours: the device time of the whole grid on the sim's H100
// and A100 (host overheads such as graph capture come on top), with the fused
// kernel as slow as the H200 measured it (about 20 s and 60 s in all).
TEST(GpuMeasurePlan, TheGridKeepsAGpuBusyForSecondsNotHours) {
  for (const char* name : {"h100-sxm", "a100-sxm"}) {
    const GpuSpec g = *LoadGpu(name);
    for (bool quick : {false, true}) {
      FakeMeasureDevice fake(g, name);
      ASSERT_TRUE(RunMeasurements(fake, DefaultMeasurePlan(g.sm_count, quick), nullptr).ok());
      const double s = fake.device_ns() / 1e9;
      std::printf("%s %s grid: %d samples, %.1f s of device time (sim model)\n", name, quick ? "quick" : "full",
                  fake.samples(), s);
      EXPECT_LT(s, quick ? 5.0 : 120.0) << name;
      EXPECT_GT(s, quick ? 0.05 : 1.0) << name;  // and it does measure something
    }
  }
}

TEST(GpuMeasurePlan, PlansADeviceCannotRunAreRefused) {
  const MeasurePlan good = DefaultMeasurePlan(132, false);
  MeasurePlan p = good;
  p.held_sms.push_back(132);
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("held SM count 132"));
  p = good;
  p.held_sms.erase(p.held_sms.begin());
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("start with 0"));
  p = good;
  p.copy_sms = {0};
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("copy SM count 0"));
  p = good;
  p.ce_copy_bytes = 1 << 20;
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("2 GiB"));
  p = good;
  p.iterations = 0;
  EXPECT_FALSE(CheckMeasurePlan(p, 132).ok());
  p = good;
  p.gemm_shapes.push_back({0, 8, 8});
  EXPECT_FALSE(CheckMeasurePlan(p, 132).ok());
  EXPECT_FALSE(CheckMeasurePlan(good, 1).ok());
}

TEST(GpuMeasureMedian, KeepsTheMedianOfTheTimedSamplesOnly) {
  std::vector<double> seq = {1e9, 1e9, 5, 1, 100, 3, 2};  // two warmups, then five timed
  size_t i = 0;
  auto next = [&]() -> Result<double> { return seq[i++]; };
  auto m = MedianOfSamples(next, 2, 5);
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(*m, 3);
  EXPECT_EQ(i, seq.size());
  seq = {4, 1, 100, 2};  // even count: the mean of the middle two
  i = 0;
  EXPECT_DOUBLE_EQ(*MedianOfSamples(next, 0, 4), 3);
  seq = {1, 0};  // a zero time is a broken timer, not a fast kernel
  i = 0;
  EXPECT_FALSE(MedianOfSamples(next, 0, 2).ok());
  auto failing = []() -> Result<double> { return Status::Unavailable("device lost"); };
  EXPECT_EQ(MedianOfSamples(failing, 1, 3).status().message(), "device lost");
  EXPECT_FALSE(MedianOfSamples(next, 0, 0).ok());
}

TEST(GpuMeasureRun, WritesTheH100MeasuredLayoutThatTheSimReads) {
  FakeMeasureDevice fake(H100(), "Fake H100");
  const MeasurePlan plan = DefaultMeasurePlan(132, false);
  auto m = RunMeasurements(fake, plan, nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  // bf16 and FP8 GEMMs, held, copies, copy engine, the fused points (two halves each).
  const int points = 20 + 20 + 4 * (1 + 2 * 8) + 10 + 3 + 3 * 4 * 2;
  EXPECT_EQ(fake.samples(), points * (plan.warmup + plan.iterations) + 4 * (plan.gap_warmup + plan.gap_iterations));
  TempDir d;
  ASSERT_TRUE(WriteMeasurementCsvs(*m, d.dir().string()).ok());
  // Headers as in h100-measured; rows per file.
  const std::pair<const char*, std::pair<const char*, size_t>> files[] = {
      {"gemm_bf16.csv", {"m,n,k,time_ms,tflops", 20}},
      {"gemm_fp8.csv", {"m,n,k,time_ms,tflops", 20}},
      {"gemm_beside_held_sms.csv", {"m,n,k,holder,held_sms,time_ms,alone_ms", 64}},
      {"copy_kernel_bw.csv", {"sms,gbs_read_plus_write", 10}},
      {"copy_engine.csv", {"what,value", 4}},
      {"launch_gaps.csv", {"what,ns_p50", 4}},
      {"fused_kernel.csv", {"m,n,k,comm_sms,gemm_ms,bytes,transfer_ms,engine", 12}},
  };
  // The shared files' headers are compared with where they are present.
  const fs::path shared = testing_shared::SharedPath(testing_shared::kSharedMeasured);
  for (const auto& [file, want] : files) {
    const auto lines = Lines(d.dir() / file);
    ASSERT_EQ(lines.size(), want.second + 1) << file;
    EXPECT_EQ(lines[0], want.first) << file;
    if (!shared.empty() && fs::exists(shared / file)) {
      const auto theirs = Lines(shared / file);
      EXPECT_EQ(lines[0], theirs[0]) << file;
      // Row names of the what-columns files are theirs (launch_gaps adds the graph rows).
      if (lines[0].rfind("what,", 0) == 0) {
        for (size_t r = 1; r < theirs.size(); ++r) {
          EXPECT_EQ(lines[r].substr(0, lines[r].find(',')), theirs[r].substr(0, theirs[r].find(','))) << file;
        }
      }
    }
  }
  auto board = sim::ReadMeasuredBoard(d.dir().string(), H100());
  ASSERT_TRUE(board.ok()) << board.status().message();
  EXPECT_EQ(board->gemm.size(), 20u);
  EXPECT_EQ(board->held.size(), 64u);
  EXPECT_EQ(board->copy_bw.size(), 10u);
  EXPECT_TRUE(board->copy_engine.present);
  EXPECT_TRUE(board->launch.present);
  EXPECT_TRUE(board->launch.graph());
  EXPECT_EQ(board->fused.size(), 12u);
  EXPECT_EQ(board->gemm_fp8.size(), 20u);
  for (const sim::MeasuredGemm& g : board->gemm_fp8) {
    const double truth = sim::GemmTimeNs(H100(), g.m, g.n, g.k, DType::kFp8E4m3);
    EXPECT_NEAR(g.time_ns / truth, 1.0, 0.021) << g.m << "x" << g.n << "x" << g.k;
  }
  // Every fifth sample is a 3x outlier and the noise is ±2 %: the medians
  // are the model's times within the noise (and the CSV's 6 digits).
  for (const sim::MeasuredGemm& g : board->gemm) {
    const double truth = sim::GemmTimeNs(H100(), g.m, g.n, g.k, DType::kBf16);
    EXPECT_NEAR(g.time_ns / truth, 1.0, 0.021) << g.m << "x" << g.n << "x" << g.k;
  }
  for (const sim::MeasuredHeldGemm& h : board->held) {
    const double truth = sim::GemmBesideHeldSmsNs(H100(), h.m, h.n, h.k, DType::kBf16, h.held_sms, h.copying);
    EXPECT_NEAR(h.time_ns / truth, 1.0, 0.021);
    EXPECT_NEAR(h.alone_ns / sim::GemmTimeNs(H100(), h.m, h.n, h.k, DType::kBf16), 1.0, 0.021);
  }
  for (const sim::MeasuredCopyBw& c : board->copy_bw) {
    EXPECT_NEAR(c.gbs / sim::CopyBandwidthGbs(H100(), c.sms), 1.0, 0.021) << c.sms;
  }
  EXPECT_NEAR(board->launch.same_stream_ns, H100().launch_us * 1e3 + FakeMeasureDevice::kHostLaunchNs, 100);
  EXPECT_GT(m->graph_cross_stream_ns, m->graph_same_stream_ns);
  EXPECT_LT(m->graph_same_stream_ns, m->host_same_stream_ns);
}

TEST(GpuMeasureRun, ReportsEveryStageUpToItsTotalInOrder) {
  FakeMeasureDevice fake(H100(), "Fake H100");
  std::vector<StageProgress> seen;
  auto m = RunMeasurements(fake, DefaultMeasurePlan(132, true), [&](const StageProgress& p) { seen.push_back(p); });
  ASSERT_TRUE(m.ok()) << m.status().message();
  std::vector<std::string> finished;
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_LE(seen[i].done, seen[i].total);
    EXPECT_GE(seen[i].elapsed_s, 0);
    if (i > 0 && seen[i].stage == seen[i - 1].stage) {
      EXPECT_EQ(seen[i].done, seen[i - 1].done + 1);
    }
    if (seen[i].done == seen[i].total) finished.push_back(seen[i].stage);
  }
  EXPECT_THAT(finished, ElementsAre("gemm_bf16.csv", "gemm_fp8.csv", "gemm_beside_held_sms.csv", "gemm_kernels.csv",
                                    "copy_kernel_bw.csv", "copy_engine.csv", "launch_gaps.csv", "fused_kernel.csv"));
  EXPECT_EQ(seen.front().done, 0);
}

// gemm_kernels.csv: one GEMM of every bf16 shape (the held ones too, each
// once) and every FP8 one, the kernels it launched written and read back,
// and the sim's choice beside them: the fake launches exactly what the
// model chooses, so every tile and grid agrees.
TEST(GpuMeasureRun, LogsTheKernelsEachShapeLaunchedAndTheSimReadsThemBack) {
  FakeMeasureDevice fake(H100(), "Fake H100");
  const MeasurePlan plan = DefaultMeasurePlan(132, false);
  auto m = RunMeasurements(fake, plan, nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(fake.logged_shapes(), 21 + 20);  // 20 + 512x7168x8192; FP8's 20
  EXPECT_TRUE(m->kernels_note.empty());
  size_t launches = 0;
  for (bool fp8 : {false, true}) {
    std::vector<GemmShape> shapes = plan.gemm_shapes;
    if (!fp8) shapes.push_back({512, 7168, 8192});
    for (const GemmShape& s : shapes) {
      launches += sim::GemmCostOf(H100(), s.m, s.n, s.k, fp8 ? DType::kFp8E4m3 : DType::kBf16).split_k > 1 ? 2 : 1;
    }
  }
  EXPECT_EQ(m->kernels.size(), launches);
  TempDir d;
  ASSERT_TRUE(WriteMeasurementCsvs(*m, d.dir().string()).ok());
  const auto lines = Lines(d.dir() / "gemm_kernels.csv");
  ASSERT_EQ(lines.size(), launches + 1);
  EXPECT_EQ(lines[0],
            "m,n,k,dtype,kernel,grid_ctas,cluster_ctas,max_active_clusters,block_threads,registers,shared_bytes");
  auto board = sim::ReadMeasuredBoard(d.dir().string(), H100());
  ASSERT_TRUE(board.ok()) << board.status().message();
  ASSERT_EQ(board->kernels.size(), launches);
  const auto rows = sim::CompareKernelChoice(H100(), *board);
  ASSERT_EQ(rows.size(), 41u);
  for (const sim::KernelChoiceRow& r : rows) {
    EXPECT_TRUE(r.tile_agrees()) << r.kernel;
    EXPECT_TRUE(r.grid_agrees()) << r.m << "x" << r.n << "x" << r.k;
    EXPECT_EQ(r.resident_ctas, 132);  // no cluster figure: one CTA per SM
  }
  EXPECT_THAT(sim::FormatKernelChoiceTable(rows),
              HasSubstr("tile as cuBLASLt's in 41 of 41 (41 named one), grid in 41"));
}

// A device whose CUPTI refuses (another profiler holds it) measures every
// file all the same and says why gemm_kernels.csv is missing.
TEST(GpuMeasureRun, WithoutAKernelLogEveryFileIsStillMeasured) {
  FakeMeasureDevice fake(H100(), "Fake H100");
  fake.SetKernelLog(false);
  auto m = RunMeasurements(fake, DefaultMeasurePlan(132, true), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_TRUE(m->kernels.empty());
  EXPECT_EQ(m->kernels_note, "gemm_kernels.csv not written: CUPTI activity tracing is not available (fake)");
  EXPECT_FALSE(m->copy_bw.empty());
  for (const auto& [name, bytes] : MeasurementCsvFiles(*m)) EXPECT_NE(name, "gemm_kernels.csv");
  MeasurePlan off = DefaultMeasurePlan(132, true);
  off.log_kernels = false;
  FakeMeasureDevice quiet(H100(), "Fake H100");
  auto q = RunMeasurements(quiet, off, nullptr);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(quiet.logged_shapes(), 0);
  EXPECT_TRUE(q->kernels_note.empty());
}

TEST(GpuMeasureRun, AFailedSampleStopsTheRunNamingStageAndPoint) {
  FakeMeasureDevice fake(H100(), "Fake H100");
  const MeasurePlan plan = DefaultMeasurePlan(132, false);
  // The first sample of the held stage's first holder run (after the bf16
  // and FP8 GEMMs and its alone run).
  const int per_point = plan.warmup + plan.iterations;
  fake.FailAtSample(40 * per_point + per_point, Status::Unavailable("an illegal memory access"));
  auto m = RunMeasurements(fake, plan, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(m.status().message(),
            "gemm_beside_held_sms.csv 8192x8192x8192 beside 0 SMs (spin): an illegal memory access");
  // Samples before Prepare are the fake's contract violations.
  FakeMeasureDevice unprepared(H100(), "Fake H100");
  EXPECT_FALSE(unprepared.GemmNs({64, 64, 64}, 1).ok());
}

// The fit of what the fake measured finds the fake's board again. Tolerances:
// the medians are within the fake's ±2 % noise, and the check's own
// tolerances (12 % per GEMM, 15 % held, 10 % bandwidth) bound the rest.
TEST(GpuMeasureFit, RecoversTheFakeBoardFromItsMeasurements) {
  const GpuSpec truth = OtherBoard();
  FakeMeasureDevice fake(truth, "Fake Board 9000");
  auto m = RunMeasurements(fake, DefaultMeasurePlan(truth.sm_count, false), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  TempDir d;
  ASSERT_TRUE(WriteMeasurementCsvs(*m, d.dir().string()).ok());
  sim::FitOptions o;
  o.chains = 2;
  o.iterations = 3000;
  auto fit = FitMeasuredGpu(H100(), d.dir().string(), *m, o);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_FALSE(fit->fit.before.ok());  // the shipped file is not this board
  EXPECT_TRUE(fit->fit.after.ok());
  for (const FileErrors& f : ErrorsByFile(fit->fit.after, *m)) {
    EXPECT_EQ(f.off, 0) << f.file;
    EXPECT_LT(f.mean_abs_pct, 4) << f.file;
  }
  const GpuSpec& g = fit->fit.gpu;
  EXPECT_EQ(g.name, "fake-board-9000");
  EXPECT_NEAR(g.sm_copy_gbs, truth.sm_copy_gbs, 0.05 * truth.sm_copy_gbs);
  EXPECT_NEAR(g.hbm_efficiency, truth.hbm_efficiency, 0.05 * truth.hbm_efficiency);
  // Times the grid never measured come out as the board's.
  for (GemmShape s : {GemmShape{2048, 4096, 4096}, GemmShape{512, 14336, 4096}, GemmShape{8192, 2560, 8192}}) {
    const double want = sim::GemmTimeNs(truth, s.m, s.n, s.k, DType::kBf16);
    EXPECT_NEAR(sim::GemmTimeNs(g, s.m, s.n, s.k, DType::kBf16) / want, 1.0, 0.08) << s.m << "x" << s.n << "x" << s.k;
  }
  // The file written reads back as that GPU and says where it came from.
  auto back = ParseGpuToml(fit->toml, "fit.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->sm_count, 132);
  EXPECT_THAT(fit->toml, HasSubstr("measured on 'Fake Board 9000' (132 SMs)"));
  EXPECT_THAT(fit->toml, HasSubstr("The fused kernel's figures: fitted to fused_kernel.csv (12 points"));
}

// The whole path for the fused kernel and the launch gaps: the fake runs a
// board whose fused kernel reaches 62 % of the chosen GEMM kernel's rate and
// moves 11 GB/s per comm CTA, with launch gaps unlike the shipped file's;
// measure -> CSVs -> fit gives those figures back, and the check's fused
// and launch rows go from off to within their tolerance.
TEST(GpuMeasureFit, FitsTheFusedKernelAndTheLaunchGapsFromTheirCsvs) {
  GpuSpec truth = OtherBoard();
  truth.fused_gemm_efficiency = 0.62;
  truth.fused_sm_transfer_gbs = 11;
  truth.launch_us = 3.1;
  truth.event_wait_us = 2.4;
  FakeMeasureDevice fake(truth, "Fake Board 9000");
  auto m = RunMeasurements(fake, DefaultMeasurePlan(truth.sm_count, false), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->fused.size(), 12u);
  // The fake's halves follow its truth: fewer SMs, slower GEMM half; more
  // comm CTAs, faster transfer half.
  EXPECT_GT(m->fused[3].gemm_ns, m->fused[0].gemm_ns);
  EXPECT_LT(m->fused[3].transfer_ns, m->fused[0].transfer_ns / 8);
  TempDir d;
  ASSERT_TRUE(WriteMeasurementCsvs(*m, d.dir().string()).ok());
  const auto csv = Lines(d.dir() / "fused_kernel.csv");
  ASSERT_EQ(csv.size(), 13u);
  EXPECT_EQ(csv[1].rfind("1024,2048,2048,2,", 0), 0u) << csv[1];
  sim::FitOptions o;
  o.chains = 2;
  o.iterations = 3000;
  auto fit = FitMeasuredGpu(H100(), d.dir().string(), *m, o);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const GpuSpec& g = fit->fit.gpu;
  EXPECT_NEAR(g.fused_gemm_efficiency, 0.62, 0.05 * 0.62);
  EXPECT_NEAR(g.fused_sm_transfer_gbs, 11, 0.03 * 11);
  // Graph-launched gaps hold no host cost: they are the figures.
  EXPECT_NEAR(g.launch_us, 3.1, 0.03 * 3.1);
  EXPECT_NEAR(g.event_wait_us, 2.4, 0.05 * 2.4);
  const auto before = ErrorsByFile(fit->fit.before, *m);
  const auto after = ErrorsByFile(fit->fit.after, *m);
  ASSERT_EQ(after.size(), 7u);
  std::printf(
      "fitted from the fake's CSVs: fused_gemm_efficiency %.4f (truth 0.62), fused_sm_transfer_gbs %.3f (11), "
      "launch_us %.3f (3.1), event_wait_us %.3f (2.4); fused_kernel.csv mean |error| %.1f %% -> %.1f %%, "
      "launch_gaps.csv %.1f %% -> %.1f %%\n",
      g.fused_gemm_efficiency, g.fused_sm_transfer_gbs, g.launch_us, g.event_wait_us, before[5].mean_abs_pct,
      after[5].mean_abs_pct, before[4].mean_abs_pct, after[4].mean_abs_pct);
  for (size_t i : {4, 5}) {
    EXPECT_EQ(after[i].rows, i == 4 ? 2 : 24) << after[i].file;
    EXPECT_GT(before[i].off, 0) << before[i].file;  // the shipped file's figures are not this board's
    EXPECT_EQ(after[i].off, 0) << after[i].file;
    EXPECT_LT(after[i].mean_abs_pct, 5) << after[i].file;
  }
  EXPECT_EQ(after[5].file, "fused_kernel.csv");
  int named = 0;
  for (const sim::FittedParameter& p : fit->fit.parameters) {
    named += p.name == "launch_us" || p.name == "event_wait_us" || p.name == "fused_gemm_efficiency" ||
             p.name == "fused_sm_transfer_gbs";
  }
  EXPECT_EQ(named, 4);
  auto back = ParseGpuToml(fit->toml, "fit.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_NEAR(back->fused_gemm_efficiency, g.fused_gemm_efficiency, 1e-5);
  EXPECT_NEAR(back->event_wait_us, g.event_wait_us, 1e-5);
}

// FP8: the fake board's E4M3 GEMMs run at efficiency_fp8 0.52 (the shipped
// file says otherwise); measure -> gemm_fp8.csv -> fit gives 0.52 back and
// the FP8 rows go from off to within their tolerance. A board without FP8
// (the A100 file) measures none and writes no gemm_fp8.csv.
TEST(GpuMeasureFit, FitsEfficiencyFp8FromTheFp8GemmRows) {
  GpuSpec truth = OtherBoard();
  ASSERT_GT(truth.tflops_fp8, 0);
  const double shipped = truth.efficiency_fp8;
  truth.efficiency_fp8 = 0.52;
  ASSERT_GT(std::abs(shipped - 0.52), 0.1);
  FakeMeasureDevice fake(truth, "Fake Board 9000");
  auto m = RunMeasurements(fake, DefaultMeasurePlan(truth.sm_count, true), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->gemm_fp8.size(), 6u);
  TempDir d;
  ASSERT_TRUE(WriteMeasurementCsvs(*m, d.dir().string()).ok());
  EXPECT_EQ(Lines(d.dir() / "gemm_fp8.csv").size(), 7u);
  sim::FitOptions o;
  o.chains = 2;
  o.iterations = 3000;
  auto fit = FitMeasuredGpu(H100(), d.dir().string(), *m, o);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const GpuSpec& g = fit->fit.gpu;
  EXPECT_NEAR(g.efficiency_fp8, 0.52, 0.05 * 0.52);
  EXPECT_EQ(g.tflops_fp8, H100().tflops_fp8);  // a published peak: kept
  const auto before = ErrorsByFile(fit->fit.before, *m);
  const auto after = ErrorsByFile(fit->fit.after, *m);
  ASSERT_EQ(after.size(), 7u);
  EXPECT_EQ(after[6].file, "gemm_fp8.csv");
  EXPECT_EQ(after[6].rows, 6);
  EXPECT_GT(before[6].off, 0);
  EXPECT_EQ(after[6].off, 0);
  bool named = false;
  for (const sim::FittedParameter& p : fit->fit.parameters) named = named || p.name == "efficiency_fp8";
  EXPECT_TRUE(named);
  auto back = ParseGpuToml(fit->toml, "fit.toml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_NEAR(back->efficiency_fp8, g.efficiency_fp8, 1e-5);
  EXPECT_THAT(fit->toml, HasSubstr("efficiency_fp8 fitted to gemm_fp8.csv (6 E4M3 GEMMs)"));

  const GpuSpec a100 = *LoadGpu("a100-sxm");
  ASSERT_EQ(a100.tflops_fp8, 0);
  FakeMeasureDevice no_fp8(a100, "Fake A100");
  auto none = RunMeasurements(no_fp8, DefaultMeasurePlan(a100.sm_count, true), nullptr);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->gemm_fp8.empty());
  EXPECT_FALSE(no_fp8.Fp8GemmNs({64, 64, 64}, 1).ok());
  TempDir d2;
  ASSERT_TRUE(WriteMeasurementCsvs(*none, d2.dir().string()).ok());
  EXPECT_FALSE(fs::exists(d2.dir() / "gemm_fp8.csv"));
}

// Bad FP8 rows: one line naming the file, the row and the column.
TEST(GpuMeasureFit, BadFp8RowsAreRefusedNamingFileRowAndColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"m,n,k,time_ms\n64,8192,1000,0.1\n", "gemm_fp8.csv:2: k: 1000 is not a multiple of 16"},
      {"m,n,k,time_ms\n64,8192,1024,-1\n", "gemm_fp8.csv:2: time_ms"},
      {"m,n,k\n64,8192,1024\n", "time_ms"},
  };
  for (const auto& [csv, says] : cases) {
    TempDir d;
    std::ofstream(d.dir() / "gemm_fp8.csv") << csv;
    auto board = sim::ReadMeasuredBoard(d.dir().string(), H100());
    ASSERT_FALSE(board.ok()) << csv;
    EXPECT_EQ(board.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(board.status().message(), HasSubstr(says));
    EXPECT_EQ(board.status().message().find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace braid::measure
