// The fused probe of `braid calibrate --measure` (braid/gpu_measure.h): the
// tables that time the fused kernel's GEMM half and transfer half apart are
// cut from the schedule's own, the fake device refuses tables that are not
// such a half, and plans the kernel cannot run are refused up front.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "braid/fused_schedule.h"
#include "braid/gpu_files.h"
#include "braid/gpu_measure.h"
#include "braid/gpu_measure_fake.h"

namespace braid::measure {
namespace {

namespace fused = cuda::fused;
using ::testing::HasSubstr;

int CountKind(const fused::RankTables& t, int32_t kind) {
  int n = 0;
  for (const fused::FusedTask& task : t.tasks) n += task.kind == kind;
  return n;
}

// Every shape × budget × P: the GEMM half is the schedule's compute tiles on
// the whole grid, the transfer half its pulls on the comm CTAs only, neither
// waits nor raises a flag, and the fake's coverage check accepts both.
TEST(GpuMeasureFusedProbe, TheHalvesSplitTheSchedulesOwnTables) {
  int cases = 0;
  for (GemmShape s : {GemmShape{4096, 4096, 4096}, GemmShape{1000, 520, 1032}, GemmShape{8192, 4096, 8192}}) {
    for (int comm : {1, 2, 8, 32}) {
      for (int ranks : {2, 4, 8}) {
        const fused::RankTables whole = fused::BuildRankTables(FusedProbeShape(s, comm, ranks, 132), 0);
        auto gemm = FusedProbeTables(s, comm, ranks, 132, FusedPart::kGemm);
        auto transfer = FusedProbeTables(s, comm, ranks, 132, FusedPart::kTransfer);
        ASSERT_TRUE(gemm.ok() && transfer.ok()) << gemm.status().message() << transfer.status().message();
        EXPECT_EQ(gemm->ctas(), 132);
        EXPECT_EQ(transfer->ctas(), comm);
        for (int c = 0; c < comm; ++c) EXPECT_EQ(gemm->cta_begin[size_t(c) + 1], gemm->cta_begin[size_t(c)]);
        EXPECT_EQ(gemm->tasks.size(), size_t(CountKind(whole, fused::kGemmTile)));
        EXPECT_EQ(CountKind(*gemm, fused::kGemmTile), int(gemm->tasks.size()));
        EXPECT_EQ(transfer->tasks.size(), size_t(CountKind(whole, fused::kPullRows)));
        EXPECT_TRUE(gemm->waits.empty() && transfer->waits.empty());
        for (const auto* t : {&*gemm, &*transfer}) {
          for (const fused::FusedTask& task : t->tasks) EXPECT_TRUE(task.wait_count == 0 && task.sets == -1);
        }
        // Rank 0 pulls the other P - 1 blocks of A: (P - 1) M / P rows of K bf16.
        EXPECT_EQ(FusedPulledBytes(*transfer), (ranks - 1) * (s.m / ranks) * s.k * 2);
        EXPECT_EQ(FusedPulledBytes(*gemm), 0);
        const fused::FusedShape shape = FusedProbeShape(s, comm, ranks, 132);
        EXPECT_TRUE(FakeMeasureDevice::CheckFusedHalf(*gemm, shape, FusedPart::kGemm).ok());
        EXPECT_TRUE(FakeMeasureDevice::CheckFusedHalf(*transfer, shape, FusedPart::kTransfer).ok());
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 36);
}

TEST(GpuMeasureFusedProbe, TheFakeRefusesTablesThatAreNotAHalf) {
  const GemmShape s{2048, 1000, 512};
  const fused::FusedShape shape = FusedProbeShape(s, 4, 8, 132);
  const fused::RankTables gemm = *FusedProbeTables(s, 4, 8, 132, FusedPart::kGemm);
  const fused::RankTables transfer = *FusedProbeTables(s, 4, 8, 132, FusedPart::kTransfer);
  const auto refused = [&](const fused::RankTables& t, FusedPart part) {
    const Status st = FakeMeasureDevice::CheckFusedHalf(t, shape, part);
    EXPECT_EQ(st.code(), StatusCode::kInternal);
    return st.message();
  };
  // The other half's tables, either way round.
  EXPECT_THAT(refused(transfer, FusedPart::kGemm), HasSubstr("a grid of 4 CTAs"));
  fused::RankTables t = gemm;
  t.tasks.back() = transfer.tasks.front();
  EXPECT_THAT(refused(t, FusedPart::kGemm), HasSubstr("belongs to the other half"));
  // A tile computed twice, one never computed, a wait left in.
  t = gemm;
  t.tasks.back() = t.tasks.front();
  EXPECT_THAT(refused(t, FusedPart::kGemm), HasSubstr("a gap or an overlap"));
  t = gemm;
  t.tasks.back().cols -= 8;
  EXPECT_THAT(refused(t, FusedPart::kGemm), HasSubstr("columns of rows"));
  t = gemm;
  t.tasks[3].wait_count = 1;
  EXPECT_THAT(refused(t, FusedPart::kGemm), HasSubstr("waits or raises a flag"));
  // Rank 0's own rows pulled, or a peer's block pulled short.
  t = transfer;
  t.tasks.front().row0 = 0;
  EXPECT_THAT(refused(t, FusedPart::kTransfer), HasSubstr("pulled rows"));
  t = transfer;
  t.tasks.back().rows -= 1;
  EXPECT_THAT(refused(t, FusedPart::kTransfer), HasSubstr("pulled rows end at 2047, not 2048"));
}

TEST(GpuMeasureFusedProbe, PlansTheKernelCannotRunAreRefused) {
  const MeasurePlan good = DefaultMeasurePlan(132, false);
  ASSERT_TRUE(CheckMeasurePlan(good, 132).ok());
  EXPECT_EQ(good.fused_shapes.size(), 3u);
  EXPECT_THAT(good.fused_comm_sms, ::testing::ElementsAre(2, 8, 16, 32));
  // A small board keeps its budgets to half its SMs.
  EXPECT_THAT(DefaultMeasurePlan(20, false).fused_comm_sms, ::testing::ElementsAre(2, 8));
  MeasurePlan p = good;
  p.fused_comm_sms.push_back(33);
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("fused probe: 1024x2048x2048 on 33 comm SMs"));
  p = good;
  p.fused_shapes.push_back({1001, 64, 64});
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("M divisible by P=8"));
  p = good;
  p.fused_ranks = 9;
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("2 to 8 ranks"));
  p = good;
  p.fused_comm_sms.clear();
  EXPECT_THAT(CheckMeasurePlan(p, 132).message(), HasSubstr("comm-SM budget"));
  p = DefaultMeasurePlan(16, false);
  p.fused_comm_sms = {16};
  EXPECT_THAT(CheckMeasurePlan(p, 16).message(), HasSubstr("leaves no SM"));
  // The fake refuses a point the kernel cannot run, as the real device would.
  FakeMeasureDevice fake(*LoadGpu("h100-sxm"), "Fake H100");
  ASSERT_TRUE(fake.Prepare(good).ok());
  EXPECT_EQ(fake.FusedPartNs({2048, 4096, 4096}, 40, 8, FusedPart::kGemm, 1).status().code(), StatusCode::kInternal);
  EXPECT_TRUE(fake.FusedPartNs({2048, 4096, 4096}, 8, 8, FusedPart::kGemm, 1).ok());
}

// The GEMM core's probe (--fused-engine core): the core's own plan on the
// SMs the pull CTAs leave and rank 0's proved pulls of every other block,
// for every shape x budget x P the default plan and a ragged one hold.
TEST(GpuMeasureCoreProbe, IsTheCorePlanAndRankZerosProvedPulls) {
  const cuda::gemm::GemmDevice h100{cuda::gemm::GemmArch::kSm90a, 132, 232448};
  int cases = 0;
  for (GemmShape s : {GemmShape{1024, 2048, 2048}, GemmShape{2048, 2048, 4096}, GemmShape{4096, 520, 1032}}) {
    for (int comm : {1, 4, 16, 32}) {
      for (int ranks : {2, 4, 8}) {
        auto probe = CoreProbeFor(s, comm, ranks, h100);
        ASSERT_TRUE(probe.ok()) << probe.status().message();
        EXPECT_LE(probe->gemm.grid, 132 - comm);
        EXPECT_EQ(probe->gemm.problem.m, s.m);
        EXPECT_EQ(probe->gemm.config.arch, cuda::gemm::GemmArch::kSm90a);
        EXPECT_EQ(probe->pulls.size(), size_t(ranks - 1));
        EXPECT_EQ(probe->bytes, (ranks - 1) * (s.m / ranks) * s.k * 2);
        EXPECT_TRUE(FakeMeasureDevice::CheckCoreProbe(*probe, 132).ok())
            << FakeMeasureDevice::CheckCoreProbe(*probe, 132).message();
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 36);
  // sm_80 plans its own tiles.
  auto a100 = CoreProbeFor({2048, 2048, 4096}, 8, 8, {cuda::gemm::GemmArch::kSm80, 108, 166912});
  ASSERT_TRUE(a100.ok()) << a100.status().message();
  EXPECT_EQ(a100->gemm.config.arch, cuda::gemm::GemmArch::kSm80);
  EXPECT_LE(a100->gemm.grid, 100);
}

TEST(GpuMeasureCoreProbe, PointsTheCoreCannotRunAreRefusedNamingThePoint) {
  const cuda::gemm::GemmDevice h100{cuda::gemm::GemmArch::kSm90a, 132, 232448};
  const auto refused = [&](GemmShape s, int comm, int ranks) {
    auto probe = CoreProbeFor(s, comm, ranks, h100);
    EXPECT_FALSE(probe.ok());
    EXPECT_EQ(probe.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(probe.status().message().find('\n'), std::string::npos);
    return probe.status().message();
  };
  EXPECT_THAT(refused({1024, 2048, 2048}, 4, 9), HasSubstr("2 to 8 ranks"));
  EXPECT_THAT(refused({1024, 2048, 2048}, 4, 1), HasSubstr("2 to 8 ranks"));
  EXPECT_THAT(refused({1024, 2048, 2048}, 132, 8), HasSubstr("the pulls need 1 to 131 CTAs"));
  EXPECT_THAT(refused({1024, 2048, 2048}, 0, 8), HasSubstr("the pulls need 1 to 131 CTAs"));
  EXPECT_THAT(refused({1001, 2048, 2048}, 4, 8),
              HasSubstr("the GEMM core's fused probe 1001x2048x2048 at P 8 on 4 comm SMs: "));
  EXPECT_THAT(refused({1024, 2048, 1001}, 4, 8), HasSubstr("multiple"));
}

TEST(GpuMeasureCoreProbe, TheFakeRefusesAProbeThatIsNotRankZeros) {
  auto probe = CoreProbeFor({2048, 2048, 4096}, 8, 4, {cuda::gemm::GemmArch::kSm90a, 132, 232448});
  ASSERT_TRUE(probe.ok());
  const auto refused = [](const CoreProbe& p) {
    const Status st = FakeMeasureDevice::CheckCoreProbe(p, 132);
    EXPECT_EQ(st.code(), StatusCode::kInternal);
    return st.message();
  };
  CoreProbe p = *probe;
  p.pulls[0].src = 0;  // rank 0's own rows
  EXPECT_THAT(refused(p), HasSubstr("which does not own them"));
  p = *probe;
  p.pulls.pop_back();
  EXPECT_THAT(refused(p), HasSubstr("flags of"));
  p = *probe;
  p.pulls[1].rows -= 8;
  p.bytes -= 8 * 4096 * 2;
  EXPECT_THAT(refused(p), HasSubstr("pulled rows"));
  p = *probe;
  p.gemm.grid = 130;
  EXPECT_THAT(refused(p), HasSubstr("a grid of 130 CTAs beside 8 pull CTAs"));
  p = *probe;
  p.bytes += 16;
  EXPECT_THAT(refused(p), HasSubstr("other bytes"));
}

// The plan's fused points on the core: every sample is a core half, each row
// says so; a device without a core kernel is refused before its first sample.
TEST(GpuMeasureCoreProbe, ARunTimesTheCoresHalvesOrIsRefusedBeforeItsFirstSample) {
  MeasurePlan plan = DefaultMeasurePlan(132, true);
  plan.fused_engine = FusedEngine::kCore;
  FakeMeasureDevice fake(*LoadGpu("h100-sxm"), "Fake H100");
  auto m = RunMeasurements(fake, plan, nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->fused.size(), plan.fused_shapes.size() * plan.fused_comm_sms.size());
  for (const MeasuredFusedRow& r : m->fused) {
    EXPECT_EQ(r.engine, FusedEngine::kCore);
    EXPECT_EQ(r.bytes, 7 * (r.shape.m / 8) * r.shape.k * 2);
    EXPECT_GT(r.gemm_ns, 0);
    EXPECT_GT(r.transfer_ns, 0);
  }
  EXPECT_EQ(fake.core_samples(), int(m->fused.size()) * 2 * (plan.warmup + plan.iterations));
  const auto files = MeasurementCsvFiles(*m);
  const auto csv =
      std::find_if(files.begin(), files.end(), [](const auto& f) { return f.first == "fused_kernel.csv"; });
  ASSERT_NE(csv, files.end());
  EXPECT_THAT(csv->second, ::testing::StartsWith("m,n,k,comm_sms,gemm_ms,bytes,transfer_ms,engine\n"));
  EXPECT_THAT(csv->second, HasSubstr(",core\n"));
  EXPECT_THAT(csv->second, ::testing::Not(HasSubstr(",tasks")));

  FakeMeasureDevice none(*LoadGpu("h100-sxm"), "Fake H100 without a core");
  none.SetCoreDevice(std::nullopt);
  EXPECT_THAT(CheckFusedEngineOn(none, plan).message(), HasSubstr("--fused-engine core: "));
  auto refused = RunMeasurements(none, plan, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("has no GEMM core kernel"));
  EXPECT_EQ(none.samples(), 0);
  // The task kernel's plan needs no core.
  plan.fused_engine = FusedEngine::kTasks;
  EXPECT_TRUE(CheckFusedEngineOn(none, plan).ok());
}

}  // namespace
}  // namespace braid::measure
