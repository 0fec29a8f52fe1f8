// The run pipeline (braid/run_pipeline.h): one library call checks, plans,
// runs, bounds, records and stores a run, speaking in field names.
#include <gtest/gtest.h>

#include <algorithm>

#include "braid/gpu_files.h"
#include "braid/model_files.h"
#include "braid/run_pipeline.h"
#include "braid/sim_backend.h"
#include "braid/topology_files.h"
#include "temp_dir.h"

namespace braid {
namespace {

RunRequest RingRequest() {
  RunRequest r;
  r.op = Workload{Op::kGemmRs, 4096, 4096, 4096, DType::kBf16, 4};
  r.config.algorithm = Algorithm::kRing;
  r.config.chunks = 2;
  r.topology = "h100-sxm";
  r.backend = "sim";
  r.options.warmup = 0;
  r.options.iters = 2;
  return r;
}

SimBackend MakeSim() { return SimBackend(*LoadGpu("h100-sxm"), *LoadTopology("h100-sxm")); }

TEST(RunPipeline, RecordsARunWithItsLowerBoundAndStoresIt) {
  Result<PreparedRun> prepared = PrepareRun(RingRequest());
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(prepared->topology.name, "h100-sxm");
  SimBackend sim = MakeSim();
  Result<RecordedRun> run = ExecuteRun(*prepared, sim);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const RunRecord& r = run->record;
  EXPECT_EQ(r.backend, "sim");
  EXPECT_EQ(r.topology, "h100-sxm");
  EXPECT_EQ(r.config, ConfigJson(prepared->plan.config));
  ASSERT_TRUE(r.figures.lower_bound);
  EXPECT_GT(r.figures.efficiency.p50, 0);
  EXPECT_LE(r.figures.efficiency.p50, 1.0);
  EXPECT_EQ(r.run_id, -1);

  testing_files::TempDir dir;
  auto store = Store::Open(dir.Path("runs.db"));
  ASSERT_TRUE(store.ok());
  Result<int64_t> id = StoreRun(**store, *prepared, *run);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(run->record.run_id, *id);
  Result<RunRecord> back = LoadRunRecord(**store, *id);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->config, r.config);
  EXPECT_DOUBLE_EQ(back->figures.metrics.overall[Metric::kMakespan].p50,
                   r.figures.metrics.overall[Metric::kMakespan].p50);
  ASSERT_TRUE(back->figures.lower_bound);
  EXPECT_DOUBLE_EQ(back->figures.lower_bound->lower_bound_ns(), r.figures.lower_bound->lower_bound_ns());
}

TEST(RunPipeline, AKnownLowerBoundIsUsedAsGiven) {
  Result<PreparedRun> prepared = PrepareRun(RingRequest());
  ASSERT_TRUE(prepared.ok());
  SimBackend sim = MakeSim();
  Result<RecordedRun> run = ExecuteRun(*prepared, sim, LowerBound{1000, 500});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->record.figures.lower_bound);
  EXPECT_DOUBLE_EQ(run->record.figures.lower_bound->lower_bound_ns(), 1000);
}

TEST(RunPipeline, ALayerRunCarriesItsLayerNoteAndTheCallersNotes) {
  RunRequest r = RingRequest();
  auto model = LoadModel("llama3-8b");
  ASSERT_TRUE(model.ok());
  auto layer = MakeLayerWorkload(*model, 1024, 1, Phase::kPrefill, 4, DType::kBf16);
  ASSERT_TRUE(layer.ok()) << layer.status().message();
  r.layer = *layer;
  Result<PreparedRun> prepared = PrepareRun(r);
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  prepared->notes.push_back("placed by the caller");
  SimBackend sim = MakeSim();
  Result<RecordedRun> run = ExecuteRun(*prepared, sim);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_NE(LayerNote(run->record.notes), nullptr);
  EXPECT_EQ((*LayerNote(run->record.notes))["describe"], layer->Describe());
  const auto& notes = run->record.notes["notes"];
  EXPECT_NE(std::find(notes.begin(), notes.end(), "placed by the caller"), notes.end());
}

TEST(RunPipeline, RefusalsNameTheRequestsFieldsNotFlags) {
  struct Case {
    const char* why;
    void (*change)(RunRequest&);
    const char* says;
  };
  const Case cases[] = {
      {"comm SMs on cpu", [](RunRequest& r) { r.backend = "cpu", r.config.comm_sms = 8; }, "`comm_sms` applies to GPU"},
      {"verify on sim", [](RunRequest& r) { r.options.verify = true; }, "`verify` needs real data"},
      {"all SMs for comm", [](RunRequest& r) { r.config.comm_sms = 132; }, "`comm_sms` 132 leaves no SM"},
      {"more ranks than GPUs", [](RunRequest& r) { r.op.tp = 16, r.op.k = 16 * 256, r.op.m = 16 * 256; }, "16"},
      {"unknown topology", [](RunRequest& r) { r.topology = "no-such-topology"; }, "no-such-topology"},
      {"iterations out of range", [](RunRequest& r) { r.options.iters = -1; }, "iters"},
  };
  for (const Case& c : cases) {
    RunRequest r = RingRequest();
    c.change(r);
    Result<PreparedRun> p = PrepareRun(r);
    ASSERT_FALSE(p.ok()) << c.why;
    EXPECT_TRUE(p.status().is_user_error()) << c.why;
    EXPECT_NE(p.status().message().find(c.says), std::string::npos) << c.why << ": " << p.status().message();
    if (std::string_view(c.why) != "iterations out of range") {
      EXPECT_EQ(p.status().message().find("--"), std::string::npos) << c.why << ": " << p.status().message();
    }
  }
}

TEST(RunPipeline, AFailedVerificationIsAnInternalStatus) {
  RunOutput out;
  EXPECT_TRUE(VerifyVerdict(out).ok());
  out.verify = {true, false, 0.5, 3};
  Status s = VerifyVerdict(out);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.is_user_error());
  EXPECT_NE(s.message().find("rank 3"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace braid
