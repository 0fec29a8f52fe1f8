// A real imported trace (a PyTorch profiler capture of NCCL on A100s, from
// the shared data folder's traces/) in the viewer: listed as imported, one row per stream,
// its overlap band matching the metrics module. Skips when the shared traces
// are absent. A TransformerEngine fixture (tests/data/framework_traces): its
// GEMMs in a table beside the timeline with their method and verdict, its
// userbuffers kernels coloured by pattern with a legend.
#include <gtest/gtest.h>

#include <algorithm>

#include "braid/metric_rows.h"
#include "braid/metrics.h"
#include "braid/trace_import.h"
#include "braid/view/kind_colors.h"
#include "braid/view/main_window.h"
#include "gui_test_util.h"
#include "shared_dir.h"

namespace braid::view {
namespace {

// Stores an imported trace as `braid import` does; returns its run id.
int64_t StoreTrace(const std::string& path, ImportedTrace& trace, std::vector<Event>* all = nullptr) {
  RunMeta meta;
  meta.source = "imported";
  meta.backend = trace.format;
  meta.has_workload = false;
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
  for (ImportedRank& r : trace.ranks) {
    meta.workload.tp = std::max(meta.workload.tp, r.world);
    for (const ImportedLane& l : r.lanes) lanes.push_back({r.rank, l.lane, l.name, ""});
    for (Event& e : r.events) events.push_back(std::move(e));
  }
  auto store = Store::Open(path);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return -1;
  auto written = (*store)->WriteRun(meta, lanes, events, MetricRowsOf(ComputeRunMetrics(events)));
  EXPECT_TRUE(written.ok()) << written.status().message();
  if (all != nullptr) *all = std::move(events);
  return written.ok() ? *written : -1;
}

TEST(ViewImportedTrace, AFrameworksGemmsAreTabledLabelledAndItsCommColouredByPattern) {
  const std::string fixture = std::string(BRAID_SOURCE_DIR) + "/tests/data/framework_traces/kineto/te_ring_exchange";
  auto trace = ImportKineto({fixture});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  testing::TempDir dir;
  const std::string path = dir.Path("te.db");
  const int64_t id = StoreTrace(path, *trace);
  MainWindow w;
  w.resize(1600, 900);
  ASSERT_TRUE(w.OpenStore(path).ok());
  ASSERT_TRUE(w.ShowRun(id).ok());
  GemmPanel* g = w.gemms();
  EXPECT_FALSE(g->isHidden());
  ASSERT_EQ(g->rowCount(), 2);  // one GEMM (a chunk per rank) a rank
  EXPECT_EQ(g->item(0, GemmPanel::kMethod)->text(), "ring");
  EXPECT_EQ(g->item(0, GemmPanel::kVerdict)->text(), "overlapped");
  // The GEMM's first kernel carries its method and verdict on the timeline.
  const GemmOverlapRow& row = g->rows()[0];
  const std::string* note = w.timeline()->NoteOf(row.rank, row.start_ns);
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(*note, "ring · overlapped");
  // The userbuffers sends and receives are drawn in the p2p colour, listed
  // in the legend.
  ASSERT_EQ(w.timeline()->comm_patterns(), (std::vector<CommPattern>{CommPattern::kP2p}));
  const QImage img = w.timeline()->grab().toImage();
  int p2p = 0;
  for (int y = 0; y < img.height(); ++y) {
    for (int x = TimelineWidget::kHeaderWidth; x < img.width(); ++x)
      p2p += img.pixel(x, y) == CommPatternColor(CommPattern::kP2p).rgb();
  }
  EXPECT_GT(p2p, 100);
  // A click on a GEMM shows it.
  emit g->cellClicked(1, 0);
  const double span = w.timeline()->view().span();
  EXPECT_GT(span, double(g->rows()[1].end_ns - g->rows()[1].start_ns));
  EXPECT_LT(span, 1.3 * double(g->rows()[1].end_ns - g->rows()[1].start_ns));
}

TEST(ViewImportedTrace, KinetoRunIsListedDrawnAndItsBandMatchesTheMetrics) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string traces = testing_shared::SharedPath(testing_shared::kSharedTraces).string();
  auto trace = ImportKineto({traces + "/kineto/a100_2rank_nccl_data.json.gz"});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  testing::TempDir dir;
  const std::string path = dir.Path("imported.db");
  std::vector<Event> events;
  const int64_t id = StoreTrace(path, *trace, &events);
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
