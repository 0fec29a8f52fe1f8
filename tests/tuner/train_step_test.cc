// A training step on a TP × DP grid on the sim (braid/train_step.h): the
// DP schedules order as they must, the step's figures add up, decomposing
// leaves no gradient collective, and bad setups are refused naming the field.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "braid/model_files.h"
#include "braid/run_pipeline.h"
#include "braid/sim_backend.h"
#include "braid/train_step.h"

namespace braid {
namespace {

TrainStepRequest Step(const std::string& model, int64_t seq, int tp, int dp, const std::string& topology) {
  TrainStepRequest r;
  Result<ModelSpec> m = LoadModel(model);
  EXPECT_TRUE(m.ok()) << m.status().message();
  Result<LayerWorkload> lw = MakeLayerWorkload(*m, seq, 1, Phase::kTrain, tp, DType::kBf16);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  r.block = *lw;
  r.config.algorithm = Algorithm::kRing;
  r.topology = topology;
  r.dp.dp = dp;
  r.dp.zero = ZeroStage::k1;
  return r;
}

TrainStepFigures Must(const TrainStepRequest& r) {
  Result<TrainStepFigures> f = SimulateTrainStep(r);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? *f : TrainStepFigures{};
}

TEST(TrainStep, BucketsHideWhatTheSerialScheduleExposesAndTheFiguresAddUp) {
  TrainStepRequest r = Step("llama3-8b", 4096, 8, 2, "h100-sxm-2node-ib");
  r.dp.schedule = DpSchedule::kSerial;
  const TrainStepFigures serial = Must(r);
  r.dp.schedule = DpSchedule::kBucketed;
  const TrainStepFigures bucketed = Must(r);
  EXPECT_EQ(bucketed.layers, 32);
  EXPECT_EQ(bucketed.bucket_params, MegatronDefaultBucketParams(2));
  EXPECT_EQ(serial.schedule.grad_collectives, 1);
  EXPECT_GT(bucketed.schedule.grad_collectives, 1);
  EXPECT_LT(bucketed.step_ns, serial.step_ns);
  EXPECT_LT(bucketed.schedule.tail_ns, serial.schedule.tail_ns);
  // step = blocks + what DP adds; tokens and MFU follow from the step.
  for (const TrainStepFigures& f : {serial, bucketed}) {
    EXPECT_NEAR(f.step_ns, 32 * f.block_ns + f.schedule.dp_exposed_ns, 1e-6 * f.step_ns);
    EXPECT_NEAR(f.tokens_per_s, 4096.0 * 2 / (f.step_ns * 1e-9), 1e-6 * f.tokens_per_s);
    EXPECT_GT(f.mfu, 0.05);
    EXPECT_LT(f.mfu, 1.0);
  }
  // The DP group of a full-node TP group crosses InfiniBand on its own rail.
  EXPECT_NE(bucketed.dp_link.find("infiniband, 1 rail"), std::string::npos) << bucketed.dp_link;
  EXPECT_GT(bucketed.stretch, 1.0);
}

TEST(TrainStep, AGivenBlockRunIsUsedAsItIs) {
  TrainStepRequest r = Step("llama3-8b", 4096, 8, 2, "h100-sxm-2node-ib");
  const TrainStepFigures fresh = Must(r);
  // The block as `braid run` runs it: the same figures from its record.
  RunRequest request;
  request.layer = r.block;
  request.config = r.config;
  request.topology = r.topology;
  Result<PreparedRun> prepared = PrepareRun(request);
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  Result<std::unique_ptr<Backend>> sim = MakeSimBackend(r.topology);
  ASSERT_TRUE(sim.ok());
  Result<RecordedRun> run = ExecuteRun(*prepared, **sim);
  ASSERT_TRUE(run.ok()) << run.status().message();
  Result<TrainStepFigures> given = SimulateTrainStep(r, &run->record);
  ASSERT_TRUE(given.ok()) << given.status().message();
  EXPECT_DOUBLE_EQ(given->step_ns, fresh.step_ns);
  RunRecord empty;
  EXPECT_FALSE(SimulateTrainStep(r, &empty).ok());  // no per-op figures: refused, not guessed
}

TEST(TrainStep, DecomposedGradientsLeaveNoCollectiveAndOnNvlinkNoTail) {
  TrainStepRequest r = Step("llama3-70b", 8192, 8, 4, "gb200-nvl72");
  const TrainStepFigures bucketed = Must(r);
  r.dp.schedule = DpSchedule::kDecomposed;
  const TrainStepFigures decomposed = Must(r);
  EXPECT_EQ(decomposed.schedule.grad_collectives, 0);
  // ZeRO-1: every layer's forward gather is decomposed into its fprop too.
  EXPECT_EQ(decomposed.schedule.gather_collectives, 0);
  ASSERT_EQ(decomposed.decomposed_ns.size(), 8u);
  EXPECT_EQ(decomposed.decomposed_ns[0].first, "fc2.grad_rs");
  EXPECT_EQ(decomposed.decomposed_ns[4].first, "qkv.param_ag");
  EXPECT_LT(decomposed.schedule.tail_ns, bucketed.schedule.tail_ns);
  EXPECT_NE(decomposed.dp_link.find("nvswitch"), std::string::npos) << decomposed.dp_link;
  // Only the last layer decomposed: the others bucketed, one tail removed.
  r.dp.decomposed_layers = 1;
  const TrainStepFigures hybrid = Must(r);
  EXPECT_GT(hybrid.schedule.grad_collectives, 0);
  EXPECT_LE(hybrid.schedule.tail_ns, bucketed.schedule.tail_ns);
}

TEST(TrainStep, ZeroThreeGathersBeforeEveryForwardAndBackward) {
  TrainStepRequest r = Step("llama3-8b", 4096, 8, 2, "h100-sxm-2node-ib");
  r.dp.zero = ZeroStage::k3;
  const TrainStepFigures three = Must(r);
  EXPECT_EQ(three.schedule.gather_collectives, 2 * 32);
  r.dp.zero = ZeroStage::kNone;
  const TrainStepFigures ddp = Must(r);
  EXPECT_EQ(ddp.schedule.gather_collectives, 0);
}

TEST(TrainStep, BadSetupsAreRefusedNamingTheField) {
  TrainStepRequest r = Step("llama3-8b", 4096, 8, 2, "h100-sxm-2node-ib");
  auto message = [&](const TrainStepRequest& req) { return CheckTrainStep(req).message(); };
  r.dp.bucket_params = 0;
  EXPECT_NE(message(r).find("`bucket_params` must be at least 1"), std::string::npos) << message(r);
  r.dp.bucket_params = int64_t(1) << 40;
  EXPECT_NE(message(r).find("is beyond the"), std::string::npos) << message(r);
  r.dp.bucket_params.reset();
  r.dp.prefetch = 0;
  EXPECT_NE(message(r).find("`prefetch`"), std::string::npos);
  r.dp.prefetch = 1;
  r.dp.dp = 4;  // 32 GPUs on a 16-GPU topology
  EXPECT_NE(message(r).find("`dp` 4 with `tp` 8 needs 32 GPUs"), std::string::npos) << message(r);
  r.dp.dp = 2;
  r.dp.zero = ZeroStage::kNone;
  r.dp.schedule = DpSchedule::kDecomposed;
  r.dp.decomposition.algorithm = Algorithm::kDirect;  // an all-reduce has no direct plan
  EXPECT_NE(message(r).find("fc2.grad_ar decomposed"), std::string::npos) << message(r);
  r.dp.decomposition.algorithm = Algorithm::kA2aDirect;  // a DP rank does not hold the whole dY
  EXPECT_NE(message(r).find("not a2a_direct"), std::string::npos) << message(r);
  TrainStepRequest prefill = Step("llama3-8b", 4096, 8, 2, "h100-sxm-2node-ib");
  prefill.block.phase = Phase::kPrefill;
  EXPECT_FALSE(CheckTrainStep(prefill).ok());
}

}  // namespace
}  // namespace braid
