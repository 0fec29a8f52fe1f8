// Run summaries, comparisons, session trials, axis and durations, flags.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "braid/layer_workload.h"
#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/planner.h"
#include "braid/run_record.h"
#include "braid/stored_text.h"
#include "braid/view/event_details.h"
#include "braid/view/run_summary.h"
#include "braid/view/session_trials.h"
#include "braid/view/time_axis.h"
#include "braid/view/view_options.h"
#include "core/tiny_model.h"
#include "gui_test_util.h"

namespace braid::view {
namespace {

using testing::HandEvents;
using testing::HandLanes;
using testing::TempDir;

TEST(ViewRunSummary, SameFiguresAsTheMetricRows) {
  TempDir dir;
  auto store = Store::Open(dir.Path("s.db"));
  ASSERT_TRUE(store.ok());
  const int64_t id =
      testing::WriteRun(**store, HandEvents(), HandLanes(), R"({"algorithm":"ring","chunks":2,"streams":1})");
  auto runs = LoadRunSummaries(**store);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 1u);
  const RunSummary& s = (*runs)[0];
  EXPECT_EQ(s.id, id);
  EXPECT_EQ(s.config, "ring chunks=2 streams=1");
  EXPECT_EQ(s.workload, "gemm_rs M=8192 N=8192 K=8192 bf16 P=2");
  EXPECT_EQ(s.event_count, int64_t(HandEvents().size()));
  EXPECT_DOUBLE_EQ(s.makespan_ns, 260);
  EXPECT_DOUBLE_EQ(s.overlap_ns, 100);
  EXPECT_DOUBLE_EQ(s.exposed_comm_ns, 60);
  EXPECT_DOUBLE_EQ(s.tail_ns, 60);
  EXPECT_DOUBLE_EQ(s.overlap_ratio, 0.625);
  EXPECT_FALSE(s.efficiency.has_value());
}

TEST(ViewRunSummary, LowerBoundAndEfficiencyRowsAreShownWhenStored) {
  // As a run's maker stores them: whole-run rows beside the metric rows.
  const RunFigures f = FiguresOf(ComputeRunMetrics(HandEvents()), LowerBound{195, 120});
  StoredRun run;
  run.meta.backend = "sim";
  run.meta.config_json = R"({"algorithm":"serial"})";
  run.meta.notes_json = "{}";
  const RunSummary s = *SummarizeRun(run, FigureRowsOf(f));
  ASSERT_TRUE(s.lower_bound_ns && s.efficiency);
  EXPECT_DOUBLE_EQ(*s.lower_bound_ns, 195);
  EXPECT_DOUBLE_EQ(*s.efficiency, 0.75);  // 195 / the 260 ns makespan
  EXPECT_DOUBLE_EQ(*s.efficiency, f.efficiency.p50);
  EXPECT_DOUBLE_EQ(s.makespan_ns, 260);
}

TEST(ViewRunSummary, ALowerBoundRecordedInNotesGivesTheEfficiency) {
  StoredRun run;
  run.meta.config_json = R"({"algorithm":"serial"})";
  run.meta.notes_json = R"({"lower_bound":{"compute_alone_ns":130,"comm_alone_ns":80,"lower_bound_ns":130}})";
  const RunSummary s = *SummarizeRun(run, MetricRowsOf(ComputeRunMetrics(HandEvents())));
  ASSERT_TRUE(s.efficiency);
  EXPECT_DOUBLE_EQ(*s.efficiency, 0.5);
}

// A training block (sim, bulk): the details of each step name its op, pass
// and method from the run's layer note, and the pair's collectives sit on
// the lane named "bulk".
TEST(ViewRunSummary, ABackwardRunNamesEachStepsPassAndMethod) {
  const Result<LayerWorkload> lw = MakeLayerWorkload(testing_core::TinyModel(), 256, 1, Phase::kTrain, 2, DType::kBf16);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  OverlapConfig bulk;
  bulk.algorithm = Algorithm::kBulk;
  const Result<Plan> plan = BuildLayerPlan(*lw, bulk);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  StoredRun run;
  run.meta.backend = "sim";
  run.meta.config_json = R"({"algorithm":"bulk"})";
  run.meta.notes_json = nlohmann::json({{"layer", LayerJson(*lw, &*plan)}}).dump();
  const Result<RunSummary> s = SummarizeRun(run, MetricRowsOf(ComputeRunMetrics(HandEvents())));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->ops.size(), 14u);

  int bulk_lane = -1;
  for (size_t l = 0; l < plan->lanes.size(); ++l) {
    if (plan->lanes[l].name == "bulk") bulk_lane = int(l);
  }
  ASSERT_GE(bulk_lane, 0);
  std::map<std::string, std::string> lines;
  for (const Step& step : plan->ranks[0].steps) {
    if (step.name.rfind("fc1.wgrad.", 0) != 0 || step.kind != StepKind::kCollective) continue;
    EXPECT_EQ(step.lane, bulk_lane) << step.name;  // the wgrad's all-gather, beside the dgrad GEMM
    Event e;
    e.name = step.name;
    e.lane = step.lane;
    for (const auto& [field, value] : EventDetails(e, "bulk", 0, s->ops)) lines[field] = value;
  }
  EXPECT_EQ(lines["op"], "fc1.wgrad");
  EXPECT_EQ(lines["pass"], "wgrad");
  EXPECT_EQ(lines["method"], "bulk");
  EXPECT_EQ(lines["lane"], std::to_string(bulk_lane) + " (bulk)");

  // The longest op name wins; a name that only shares a prefix has no op.
  const std::vector<OpNote> ops = {{"attention", "fprop", "serial", "", std::nullopt},
                                   {"attention.backward", "dgrad", "serial", "", std::nullopt}};
  ASSERT_NE(OpOfEvent("attention.backward.compute", ops), nullptr);
  EXPECT_EQ(OpOfEvent("attention.backward.compute", ops)->name, "attention.backward");
  EXPECT_EQ(OpOfEvent("attentionx.compute", ops), nullptr);
  EXPECT_EQ(OpOfEvent("attention", ops), nullptr);
}

// A layer run opens with each GEMM's own figures and config, from the
// layer note its run stored (braid/op_figures.h).
TEST(ViewRunSummary, ALayerRunListsEachGemmsTimeExposedCommAndConfig) {
  const Result<LayerWorkload> lw = MakeLayerWorkload(testing_core::TinyModel(), 256, 1, Phase::kTrain, 2, DType::kBf16);
  ASSERT_TRUE(lw.ok()) << lw.status().message();
  OverlapConfig bulk;
  bulk.algorithm = Algorithm::kBulk;
  bulk.comm_sms = 4;
  bulk.wgrad_comm_sms = 24;
  const Result<Plan> plan = BuildLayerPlan(*lw, bulk);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<OpFigures> figures(lw->ops.size());
  for (size_t i = 0; i < figures.size(); ++i) figures[i] = {1000.0 * double(i + 1), 500, 200, 50, 0.75};
  StoredRun run;
  run.meta.backend = "sim";
  run.meta.config_json = R"({"algorithm":"bulk"})";
  run.meta.notes_json = nlohmann::json({{"layer", LayerJson(*lw, &*plan, &figures)}}).dump();
  const Result<RunSummary> s = SummarizeRun(run, MetricRowsOf(ComputeRunMetrics(HandEvents())));
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::vector<DetailLine> lines = OpSummaryLines(s->ops);
  ASSERT_EQ(lines.size(), lw->ops.size() + 1);  // a header, then every op
  std::map<std::string, std::string> by_op(lines.begin(), lines.end());
  EXPECT_EQ(by_op.at("qkv.fprop"), "1.00 µs · exposed 50 ns · overlap 0.750 · serial chunks=1 streams=1 comm_sms=4");
  EXPECT_NE(by_op.at("fc1.wgrad").find("bulk chunks=1 streams=1 comm_sms=24"), std::string::npos)
      << by_op.at("fc1.wgrad");
  // A run from before per-op figures lists nothing.
  run.meta.notes_json = nlohmann::json({{"layer", LayerJson(*lw, &*plan)}}).dump();
  const Result<RunSummary> old = SummarizeRun(run, MetricRowsOf(ComputeRunMetrics(HandEvents())));
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(OpSummaryLines(old->ops).empty());
  EXPECT_EQ(OpPartOfName("fc2.dgrad.gemm"), "fc2.dgrad");
  EXPECT_EQ(OpPartOfName("attention"), "");
}

TEST(ViewRunSummary, ImportedRunsSayWhatTheyAre) {
  StoredRun run;
  run.meta.source = "imported";
  run.meta.has_workload = false;
  run.meta.workload.tp = 8;
  run.meta.backend = "kineto";
  run.meta.config_json = "{}";
  run.meta.notes_json = "{}";
  const RunSummary s = *SummarizeRun(run, {});
  EXPECT_EQ(s.workload, "imported trace, 8 rank(s)");
  EXPECT_EQ(s.config, "");
}

TEST(ViewRunSummary, DamagedStoredTextGetsTheSameAnswerAsEveryOtherReader) {
  // The viewer used to render such a run (its config as "") while `braid
  // report` refused it; both now decode through the store's codec.
  for (const auto& [config, notes] : {std::pair{"{broken", "{}"},
                                      {R"({"algorithm":"ring","chunks":"2"})", "{}"},
                                      {R"({"algorithm":"ring"})", R"({"verify":{"ok":1}})"}}) {
    StoredRun run;
    run.id = 5;
    run.meta.config_json = config;
    run.meta.notes_json = notes;
    const Result<RunSummary> s = SummarizeRun(run, {});
    const Result<RunRecord> r = RecordOfStored(run, {});
    ASSERT_FALSE(s.ok()) << config << " " << notes;
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(s.status().message(), r.status().message());
    EXPECT_EQ(s.status().message().rfind("damaged store: run 5 has ", 0), 0u) << s.status().message();
  }
}

TEST(ViewCompare, DifferencesAndRatiosOfTwoRuns) {
  RunSummary a, b;
  a.makespan_ns = 200;
  b.makespan_ns = 150;
  a.efficiency = 0.5;
  const auto rows = CompareRuns(a, b);
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0].name, "makespan_ns");
  EXPECT_DOUBLE_EQ(rows[0].diff, -50);
  EXPECT_DOUBLE_EQ(rows[0].ratio, 0.75);
  EXPECT_EQ(rows[8].name, "efficiency");
  EXPECT_FALSE(rows[8].b.has_value());
  EXPECT_DOUBLE_EQ(rows[8].diff, 0);
}

StoredTrial Trial(int64_t id, const std::string& key, const std::string& config, const std::string& samples) {
  StoredTrial t;
  t.id = id;
  t.trial.key = key;
  t.trial.config_json = config;
  t.trial.samples_json = samples;
  t.trial.run = id * 10;
  return t;
}

TEST(ViewSessionTrials, MedianIntervalAndSpeedupOverTheSerialTrialOfTheSameOp) {
  const std::vector<StoredTrial> trials = {
      Trial(1, "fc2|serial|r0", R"({"algorithm":"serial","chunks":1})", "[100,110,90]"),
      Trial(2, "fc2|ring chunks=2|r0", R"({"algorithm":"ring","chunks":2})", "[50,40,60]"),
      Trial(3, "fc1|ring chunks=2|r0", R"({"algorithm":"ring","chunks":2})", "[80]"),
      Trial(4, "fc2|chunked|r0", R"({"algorithm":"chunked","chunks":4})", "not json"),
  };
  const auto rows = TrialRowsOf(trials);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].op, "fc2");
  EXPECT_EQ(rows[1].algorithm, "ring");
  EXPECT_EQ(rows[1].chunks, 2);
  EXPECT_EQ(rows[1].config, "ring chunks=2 streams=1");  // the tuner's own label (OverlapConfig::Describe)
  ASSERT_TRUE(rows[1].median_ns);
  EXPECT_DOUBLE_EQ(*rows[1].median_ns, 50);
  EXPECT_DOUBLE_EQ(*rows[1].ci_low_ns, 40);  // fewer than 6 samples: [min, max]
  EXPECT_DOUBLE_EQ(*rows[1].ci_high_ns, 60);
  ASSERT_TRUE(rows[1].speedup_vs_serial);
  EXPECT_DOUBLE_EQ(*rows[1].speedup_vs_serial, 2.0);
  EXPECT_DOUBLE_EQ(*rows[0].speedup_vs_serial, 1.0);
  EXPECT_FALSE(rows[2].speedup_vs_serial);  // fc1 has no serial trial
  EXPECT_FALSE(rows[3].median_ns);          // damaged samples: no time, no crash
  EXPECT_EQ(*rows[3].run, 40);
}

TEST(ViewTimeAxis, DurationsInReadableUnits) {
  EXPECT_EQ(FormatDuration(850), "850 ns");
  EXPECT_EQ(FormatDuration(12'345), "12.3 µs");
  EXPECT_EQ(FormatDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(FormatDuration(123'000'000), "123 ms");
  EXPECT_EQ(FormatDuration(1.2e9), "1.20 s");
}

TEST(ViewTimeAxis, TicksAtOneTwoFiveStepsAtLeastTheSpacingApart) {
  const auto ticks = AxisTicks({0, 1'000'000}, 1000, 90);  // 90 px = 90 µs -> 100 µs steps
  ASSERT_EQ(ticks.size(), 11u);
  EXPECT_EQ(ticks[0].label, "0 µs");
  EXPECT_EQ(ticks[1].label, "100 µs");
  EXPECT_DOUBLE_EQ(ticks[10].t, 1'000'000);
  const auto fine = AxisTicks({1000, 1300}, 1000, 90);  // 27 ns -> 50 ns steps
  ASSERT_FALSE(fine.empty());
  EXPECT_DOUBLE_EQ(fine[0].t, 1000);
  EXPECT_EQ(fine[1].label, "1050 ns");
}

TEST(ViewTimeAxis, ZoomKeepsTheAnchorAndStopsAtTheMinimumSpan) {
  const ViewRange r{0, 1000};
  const ViewRange z = r.Zoomed(0.5, 0.25);
  EXPECT_DOUBLE_EQ(z.begin + 0.25 * z.span(), 250);
  EXPECT_DOUBLE_EQ(z.span(), 500);
  EXPECT_DOUBLE_EQ(r.Zoomed(1e-9, 0.5).span(), ViewRange::kMinSpan);
  const ViewRange f = ViewRange::Fit(100, 200, 0.1);
  EXPECT_DOUBLE_EQ(f.begin, 90);
  EXPECT_DOUBLE_EQ(f.end, 210);
}

TEST(ViewOptionsParse, PositionalStoreAndIds) {
  auto o = ParseViewOptions({"a.db", "--run", "3", "--compare", "4"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->db, "a.db");
  EXPECT_EQ(*o->run, 3);
  EXPECT_EQ(*o->compare, 4);
  auto s = ParseViewOptions({"--screenshot", "x.png", "--db", "a.db", "--run", "1", "--size", "800x600"});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->width, 800);
  EXPECT_EQ(s->screenshot, "x.png");
}

TEST(ViewOptionsParse, BadFlagsAreOneLineNamingTheProblem) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--bogus"},
                                             {"a.db", "--run"},
                                             {"a.db", "--run", "x"},
                                             {"a.db", "--run", "0"},
                                             {"a.db", "b.db"},
                                             {"--run", "1"},
                                             {"a.db", "--compare", "2"},
                                             {"a.db", "--run", "1", "--session", "1"},
                                             {"--screenshot", "x.png", "--db", "a.db"},
                                             {"a.db", "--run", "1", "--size", "10x10"},
                                             {"a.db", "--run", "1", "--run", "2"},
                                             {"a.db", "--run", "1", "--size", "800x600", "--size", "900x700"},
                                             {"a.db", "--run", "1", "--screenshot", ""},
                                             {"a.db", "--run", "1", "--screenshot", "a.png", "--screenshot", "b.png"},
                                             {"--db", ""}}) {
    auto o = ParseViewOptions(args);
    ASSERT_FALSE(o.ok()) << args[0];
    EXPECT_TRUE(o.status().is_user_error());
    EXPECT_EQ(o.status().message().find('\n'), std::string::npos);
  }
}

TEST(ViewOptionsParse, HelpWinsAndNamesEveryFlag) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{{"--help"}, {"a.db", "-h"}}) {
    auto o = ParseViewOptions(args);
    ASSERT_TRUE(o.ok()) << o.status().message();
    EXPECT_TRUE(o->help);
  }
  const std::string usage = ViewUsage();
  for (const char* flag : {"--db", "--run", "--compare", "--session", "--screenshot", "--size", "--help"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
  auto twice = ParseViewOptions({"a.db", "--run", "1", "--run", "2"});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "--run given twice: give it once");
}

TEST(ViewOptionsParse, TargetsAreCheckedAgainstTheStore) {
  TempDir dir;
  const std::string path = dir.Path("s.db");
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    testing::WriteRun(**store, HandEvents(), HandLanes());
  }
  ViewOptions o;
  o.db = path;
  o.run = 1;
  EXPECT_TRUE(CheckViewTargets(o).ok());
  o.compare = 9;
  const Status s = CheckViewTargets(o);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("no run 9"), std::string::npos) << s.message();
  o.compare.reset();
  o.session = 1;
  EXPECT_EQ(CheckViewTargets(o).code(), StatusCode::kNotFound);
  o.db = dir.Path("missing.db");
  EXPECT_EQ(CheckViewTargets(o).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace braid::view
