// A real imported trace (a PyTorch profiler capture of NCCL on A100s, from
// the shared data folder's traces/) in the viewer: listed as imported, one row per stream,
// its overlap band matching the metrics module. Skips when the shared traces
// are absent.
#include <gtest/gtest.h>

#include <algorithm>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/trace_import.h"
#include "braid/view/main_window.h"
#include "gui_test_util.h"
#include "shared_dir.h"

namespace braid::view {
namespace {

TEST(ViewImportedTrace, KinetoRunIsListedDrawnAndItsBandMatchesTheMetrics) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string traces = testing_shared::SharedPath(testing_shared::kSharedTraces).string();
  auto trace = ImportKineto({traces + "/kineto/a100_2rank_nccl_data.json.gz"});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  RunMeta meta;
  meta.source = "imported";
  meta.backend = "kineto";
  meta.has_workload = false;
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
  for (ImportedRank& r : trace->ranks) {
    meta.workload.tp = std::max(meta.workload.tp, r.world);
    for (const ImportedLane& l : r.lanes) lanes.push_back({r.rank, l.lane, l.name, ""});
    for (Event& e : r.events) events.push_back(std::move(e));
  }
  testing::TempDir dir;
  const std::string path = dir.Path("imported.db");
  int64_t id = 0;
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    auto written = (*store)->WriteRun(meta, lanes, events, MetricRowsOf(ComputeRunMetrics(events)));
    ASSERT_TRUE(written.ok()) << written.status().message();
    id = *written;
  }
  MainWindow w;
  ASSERT_TRUE(w.OpenStore(path).ok());
  QSortFilterProxyModel* p = w.browser()->proxy();
  ASSERT_EQ(p->rowCount(), 1);
  EXPECT_EQ(p->data(p->index(0, RunTableModel::kBackend)).toString(), "kineto (imported)");
  EXPECT_TRUE(p->data(p->index(0, RunTableModel::kWorkload)).toString().startsWith("imported trace"));
  ASSERT_TRUE(w.ShowRun(id).ok());
  const Timeline* t = w.timeline()->timeline();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->event_count, events.size());
  bool stream_row = false;
  for (const TimelineRow& row : t->rows) stream_row = stream_row || row.name.rfind("stream ", 0) == 0;
  EXPECT_TRUE(stream_row);
  // Per rank and iteration, the band adds up to the metrics of the import.
  const RunMetrics m = ComputeRunMetrics(events);
  const auto& bands = w.timeline()->bands();
  ASSERT_EQ(bands.size(), t->ranks.size());
  for (const RankBand& b : bands) {
    int64_t overlap = 0;
    for (const Interval& i : b.overlap) overlap += i.end - i.begin;
    double want = 0;
    for (int it = 0; it < m.iterations; ++it) want += m.values[size_t(it)][size_t(b.rank)][Metric::kOverlap];
    // Iterations of an imported trace may overlap in time, which the band
    // merges; it never holds more than the metrics' sum.
    EXPECT_LE(double(overlap), want) << "rank " << b.rank;
    EXPECT_GT(overlap, 0) << "rank " << b.rank << ": NCCL kernels overlap compute in this capture";
  }
  // Drawing it offscreen works at the fitted zoom.
  w.resize(1400, 900);
  EXPECT_FALSE(w.grab().isNull());
}

}  // namespace
}  // namespace braid::view
