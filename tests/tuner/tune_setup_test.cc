// TuneSetup -> PrepareTune (braid/tune_setup.h): the checks tune makes
// before measuring, in the tuner's fields.
#include "braid/tune_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.h"

namespace braid {
namespace tune_setup_test {
namespace {

using ::testing::HasSubstr;
using testing_files::TempDir;

TuneSetup OneOp(const TempDir& dir) {
  TuneSetup s;
  Workload w;
  w.op = Op::kAgGemm;
  w.m = 1024;
  w.n = 1024;
  w.k = 1024;
  w.tp = 4;
  s.op = w;
  s.out = dir.Path("presets.toml");
  s.db = dir.Path("braid.db");
  return s;
}

TEST(TuneSetup, FieldsAreCheckedByTheirNames) {
  TempDir dir;
  TuneSetup s = OneOp(dir);
  s.budget = 0;
  EXPECT_THAT(CheckTuneSetup(s).message(), HasSubstr("`budget` must be at least 1"));
  s = OneOp(dir);
  s.session = 3;
  EXPECT_THAT(CheckTuneSetup(s).message(), HasSubstr("`session` names the session `resume` continues"));
  s = OneOp(dir);
  s.out = "-";
  EXPECT_THAT(CheckTuneSetup(s).message(), HasSubstr("`out` -"));
  s = OneOp(dir);
  s.link_gbps = 10;
  EXPECT_THAT(CheckTuneSetup(s).message(), HasSubstr("`link_gbps` applies to the cpu backend only"));
  EXPECT_TRUE(CheckTuneSetup(OneOp(dir)).ok());
}

TEST(TuneSetup, OneOpOnTheSimIsOneDeterministicTarget) {
  TempDir dir;
  auto p = PrepareTune(OneOp(dir));
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->request.targets.size(), 1u);
  EXPECT_EQ(p->request.search.iters, 1);
  EXPECT_EQ(p->request.search.warmup, 0);
  EXPECT_EQ(p->request.search.strategy, Strategy::kExhaustive);
  EXPECT_EQ(p->request.topology, "h100-sxm");
  EXPECT_FALSE(p->step.has_value());
  EXPECT_FALSE(std::filesystem::exists(dir.Path("braid.db")));  // nothing written
}

TEST(TuneSetup, LoopbackKeysTheWinnersApart) {
  TempDir dir;
  TuneSetup s = OneOp(dir);
  s.loopback = true;
  auto p = PrepareTune(s);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->request.topology, "h100-sxm-loopback");
}

TEST(TuneSetup, ADpStepNeedsATrainingBlock) {
  TempDir dir;
  TuneSetup s = OneOp(dir);
  s.dp = DpSetup{};
  auto p = PrepareTune(s);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("`dp` tunes a training step"));
}

TEST(TuneSetup, ResumeNeedsAStore) {
  TempDir dir;
  TuneSetup s = OneOp(dir);
  s.resume = true;
  auto p = PrepareTune(s);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("`resume`: there is no store"));
}

}  // namespace
}  // namespace tune_setup_test
}  // namespace braid
