// A tuning session's plot (offscreen) and its time axis: one candidate 100×
// slower no longer squeezes the others into a line (the axis turns
// logarithmic), a session of several targets plots one at a time, and the
// table's columns fit their contents.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QHeaderView>
#include <QTableView>
#include <cmath>

#include "braid/view/session_view.h"
#include "braid/view/trial_plot.h"
#include "braid/view/trial_scale.h"

namespace braid::view {
namespace {

TrialRow Trial(int64_t id, const std::string& op, const std::string& algorithm, int chunks, double ns) {
  TrialRow t;
  t.id = id;
  t.op = op;
  t.algorithm = algorithm;
  t.config = algorithm + " chunks=" + std::to_string(chunks) + " streams=1 a config long enough to be cut";
  t.status = "done";
  t.chunks = chunks;
  t.median_ns = ns;
  return t;
}

TEST(TrialScale, LinearUntilTheSlowestIsTenTimesTheFastest) {
  const TrialScale lin = MakeTrialScale(1000, 5000);
  EXPECT_FALSE(lin.log);
  EXPECT_NEAR(lin.FromTop(lin.hi), 0, 1e-12);
  EXPECT_NEAR(lin.FromTop(lin.lo), 1, 1e-12);
  EXPECT_EQ(lin.Ticks().size(), 5u);
  const TrialScale log = MakeTrialScale(1e6, 1e8);
  EXPECT_TRUE(log.log);
  // Equal ratios, equal distances.
  EXPECT_NEAR(log.FromTop(1e6) - log.FromTop(1e7), log.FromTop(1e7) - log.FromTop(1e8), 1e-12);
  const std::vector<double> ticks = log.Ticks();
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), 1e7), ticks.end());
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), 2e7), ticks.end());
  EXPECT_TRUE(std::is_sorted(ticks.rbegin(), ticks.rend()));
}

TEST(TrialPlotWidget, OneCandidate100TimesSlowerLeavesTheOthersApart) {
  TrialPlot plot;
  plot.resize(600, 260);
  plot.SetTrials({Trial(1, "", "serial", 1, 120e6), Trial(2, "", "ring", 1, 1.00e6), Trial(3, "", "ring", 2, 1.10e6),
                  Trial(4, "", "direct", 1, 1.25e6)});
  EXPECT_TRUE(plot.scale().log);
  const double y_fast = plot.PointOf(1)->y(), y_mid = plot.PointOf(2)->y(), y_slow = plot.PointOf(3)->y();
  // 1.0, 1.1 and 1.25 ms: apart by pixels, not squeezed into one line (a
  // linear axis had them within 1.5 px).
  EXPECT_GT(y_fast - y_mid, 3.0);
  EXPECT_GT(y_mid - y_slow, 3.0);
  EXPECT_LT(plot.PointOf(0)->y(), y_slow - 100);  // the slow one at the top
}

TEST(TrialPlotWidget, ASessionOfSeveralTargetsPlotsOneAtATime) {
  SessionView view;
  view.resize(900, 700);
  StoredSession s;
  s.id = 1;
  s.info.workload_key = "llama3-70b prefill";
  view.SetSession(s, {Trial(1, "qkv", "ring", 1, 2e6), Trial(2, "qkv", "direct", 1, 1.8e6),
                      Trial(3, "fc2", "ring", 4, 9e6), Trial(4, "fc2", "serial", 1, 12e6)});
  ASSERT_EQ(view.plot()->targets(), (std::vector<std::string>{"qkv", "fc2"}));
  EXPECT_FALSE(view.targets()->isHidden());
  EXPECT_EQ(view.targets()->count(), 2);
  view.plot()->resize(600, 260);
  EXPECT_TRUE(view.plot()->PointOf(0).has_value());
  EXPECT_FALSE(view.plot()->PointOf(2).has_value());  // fc2's: not this plot's
  view.targets()->setCurrentIndex(1);
  EXPECT_FALSE(view.plot()->PointOf(0).has_value());
  EXPECT_TRUE(view.plot()->PointOf(3).has_value());
  // fc2's axis fits fc2's times (9 to 12 ms), not qkv's.
  EXPECT_GT(view.plot()->scale().lo, 5e6);
  // The table's config column is as wide as its text.
  const int config_col = TrialTableModel::kConfig;
  const QString text = view.model()->data(view.model()->index(0, config_col), Qt::DisplayRole).toString();
  EXPECT_GE(view.table()->columnWidth(config_col), view.table()->fontMetrics().horizontalAdvance(text));
  // One target: no chooser.
  view.SetSession(s, {Trial(1, "", "ring", 1, 2e6)});
  EXPECT_TRUE(view.targets()->isHidden());
}

}  // namespace
}  // namespace braid::view
