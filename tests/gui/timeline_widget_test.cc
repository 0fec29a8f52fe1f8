// The timeline widget, offscreen: navigation with QTest input, and pixels
// where the band, each kind of event and the tail marker must be.
#include "braid/view/timeline_widget.h"

#include <gtest/gtest.h>

#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include "braid/view/kind_colors.h"
#include "gui_test_util.h"

namespace braid::view {
namespace {

constexpr int kX0 = TimelineWidget::kHeaderWidth;

// 1 ns per pixel from time 0: x = 150 + t.
class TimelineWidgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    w.resize(kX0 + 1000, 400);
    w.SetTimeline(std::make_shared<Timeline>(BuildTimeline(testing::HandEvents(), testing::HandLanes())));
    w.SetView({0, 1000});
  }
  int RowY(int rank, int lane) const { return w.layout()[size_t(rank)].row_y[size_t(lane)]; }
  int BandY(int rank) const { return w.layout()[size_t(rank)].band_y; }
  QImage Grab() { return w.grab().toImage(); }

  TimelineWidget w;
};

TEST_F(TimelineWidgetTest, WheelZoomsAroundTheCursor) {
  const QPointF at(kX0 + 300, RowY(0, 0) + 5);
  const double t_before = w.TimeAtX(at.x());
  QWheelEvent in(at, w.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                 false);
  QApplication::sendEvent(&w, &in);
  EXPECT_NEAR(w.view().span(), 800, 1e-6);
  EXPECT_NEAR(w.TimeAtX(at.x()), t_before, 1e-6);  // the time under the cursor stays there
  QWheelEvent out(at, w.mapToGlobal(at), QPoint(), QPoint(0, -240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                  false);
  QApplication::sendEvent(&w, &out);
  EXPECT_NEAR(w.view().span(), 800 / 0.64, 1e-6);
  EXPECT_NEAR(w.TimeAtX(at.x()), t_before, 1e-6);
}

TEST_F(TimelineWidgetTest, DragPansByTheDistanceMoved) {
  QSignalSpy spy(&w, &TimelineWidget::viewChanged);
  const QPoint from(kX0 + 500, RowY(0, 0) + 5);
  QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, from);
  QTest::mouseMove(&w, from - QPoint(100, 0));
  QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, from - QPoint(100, 0));
  EXPECT_NEAR(w.view().begin, 100, 1e-6);
  EXPECT_NEAR(w.view().end, 1100, 1e-6);
  EXPECT_GE(spy.count(), 1);
  EXPECT_FALSE(w.selected().has_value());  // a drag is not a click
}

TEST_F(TimelineWidgetTest, ClickSelectsTheEventUnderTheCursor) {
  QSignalSpy spy(&w, &TimelineWidget::eventSelected);
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(kX0 + 120, RowY(1, 0) + 10));  // rank 1 gemm0 [10,110)
  ASSERT_TRUE(w.selected().has_value());
  const Event e = EventOf(*w.timeline(), *w.selected());
  EXPECT_EQ(e.name, "gemm1");  // t = 120 is in gemm1 [110, 210) of rank 1
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(spy.count(), 1);
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(kX0 + 100, RowY(0, 1) + 10));  // rank 0 send0
  ASSERT_TRUE(w.selected().has_value());
  EXPECT_EQ(EventOf(*w.timeline(), *w.selected()).name, "send0");
  ASSERT_EQ(w.transfer_partners().size(), 1u);                                                // its recv side on rank 1
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(kX0 + 700, RowY(0, 0) + 10));  // nothing at t=700
  EXPECT_FALSE(w.selected().has_value());
}

TEST_F(TimelineWidgetTest, ShiftDragSelectsARangeAndReportsItsOverlap) {
  QSignalSpy spy(&w, &TimelineWidget::rangeSelected);
  const int y = RowY(0, 0) + 5;
  QTest::mousePress(&w, Qt::LeftButton, Qt::ShiftModifier, QPoint(kX0, y));
  QTest::mouseMove(&w, QPoint(kX0 + 300, y));
  QTest::mouseRelease(&w, Qt::LeftButton, Qt::ShiftModifier, QPoint(kX0 + 300, y));
  ASSERT_GE(spy.count(), 1);
  const RangeStats s = spy.last().at(0).value<RangeStats>();
  EXPECT_EQ(s.duration_ns, 300);
  EXPECT_DOUBLE_EQ(s.compute_ns, 200);
  EXPECT_DOUBLE_EQ(s.comm_ns, 160);
  EXPECT_DOUBLE_EQ(s.overlap_ratio, 0.625);
  ASSERT_TRUE(w.selected_range());
  EXPECT_DOUBLE_EQ(w.selected_range()->span(), 300);
  // F fits the range; Esc clears it.
  QTest::keyClick(&w, Qt::Key_F);
  EXPECT_LT(w.view().span(), 330);
  EXPECT_GT(w.view().span(), 300);
  QTest::keyClick(&w, Qt::Key_Escape);
  EXPECT_FALSE(w.selected_range());
}

TEST_F(TimelineWidgetTest, KeysZoomPanAndFit) {
  QTest::keyClick(&w, Qt::Key_W);
  EXPECT_NEAR(w.view().span(), 800, 1e-6);
  EXPECT_NEAR(w.view().begin, 100, 1e-6);  // around the centre
  QTest::keyClick(&w, Qt::Key_D);
  EXPECT_NEAR(w.view().begin, 180, 1e-6);
  QTest::keyClick(&w, Qt::Key_A);
  QTest::keyClick(&w, Qt::Key_A);
  EXPECT_NEAR(w.view().begin, 20, 1e-6);
  QTest::keyClick(&w, Qt::Key_S);
  EXPECT_NEAR(w.view().span(), 1000, 1e-6);
  QTest::keyClick(&w, Qt::Key_F);  // nothing selected: the whole run
  EXPECT_LT(w.view().begin, 0);
  EXPECT_GT(w.view().end, 1280);
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(int(w.XOfTime(50)), RowY(0, 0) + 10));
  ASSERT_TRUE(w.selected());
  QTest::keyClick(&w, Qt::Key_F);  // the selected event, gemm0 [0, 100)
  EXPECT_NEAR(w.view().begin + w.view().span() / 2, 50, 1e-6);
  EXPECT_LT(w.view().span(), 130);
}

TEST_F(TimelineWidgetTest, ClickOnARankHeaderCollapsesItsRows) {
  const int rank1_before = w.layout()[1].header_y;
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(20, w.layout()[0].header_y + 5));
  EXPECT_TRUE(w.layout()[0].collapsed);
  EXPECT_TRUE(w.layout()[0].row_y.empty());
  EXPECT_EQ(w.layout()[1].header_y, rank1_before - 3 * TimelineWidget::kRowHeight);
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(20, w.layout()[0].header_y + 5));
  EXPECT_FALSE(w.layout()[0].collapsed);
}

TEST_F(TimelineWidgetTest, PixelsOfEachKindTheBandAndTheTail) {
  const QImage img = Grab();
  auto at = [&](double t, int y) { return img.pixelColor(int(kX0 + t), y); };
  // Events (top edge of each box, clear of its label).
  EXPECT_EQ(at(90, RowY(0, 0) + 3).rgb(), KindColor(EventKind::kCompute).rgb());
  EXPECT_EQ(at(140, RowY(0, 1) + 3).rgb(), KindColor(EventKind::kComm).rgb());
  EXPECT_EQ(at(160, RowY(0, 2) + 3).rgb(), KindColor(EventKind::kReduce).rgb());
  EXPECT_EQ(at(180, RowY(0, 2) + 3).rgb(), KindColor(EventKind::kCopy).rgb());
  EXPECT_EQ(at(265, RowY(0, 2) + 3).rgb(), KindColor(EventKind::kSync).rgb());
  EXPECT_EQ(at(400, RowY(0, 0) + 3).rgb(), kRowBackground.rgb());  // nothing at t=400
  // Band: overlap [50,150), exposed [200,260), tail [200,260) underneath.
  const int band = BandY(0);
  EXPECT_EQ(at(100, band + 3).rgb(), kOverlapColor.rgb());
  EXPECT_EQ(at(20, band + 3).rgb(), kBandBackground.rgb());  // compute alone
  EXPECT_EQ(at(230, band + 3).rgb(), kExposedColor.rgb());
  EXPECT_EQ(at(230, band + TimelineWidget::kBandHeight - 2).rgb(), kTailColor.rgb());
  EXPECT_EQ(at(100, band + TimelineWidget::kBandHeight - 2).rgb(), kBandBackground.rgb());
  // Rank 1 is 10 ns later.
  EXPECT_EQ(at(55, BandY(1) + 3).rgb(), kBandBackground.rgb());
  EXPECT_EQ(at(65, BandY(1) + 3).rgb(), kOverlapColor.rgb());
}

TEST(TimelineWidgetFold, NarrowEventsAreDrawnAsOneDarkerBlock) {
  TimelineWidget w;
  w.resize(kX0 + 300, 200);
  w.SetTimeline(std::make_shared<Timeline>(BuildTimeline(testing::DenseEvents(1000, 2, 1), {})));
  w.SetView({0, 3000});  // 10 ns per pixel
  const QImage img = w.grab().toImage();
  const int y = w.layout()[0].row_y[0] + 3;
  EXPECT_EQ(img.pixelColor(kX0 + 150, y).rgb(), FoldColor(EventKind::kCompute).rgb());
  w.SetView({0, 30});  // 0.1 ns per px: single events again
  const QImage near = w.grab().toImage();
  EXPECT_EQ(near.pixelColor(kX0 + 10, y).rgb(), KindColor(EventKind::kCompute).rgb());  // t = 1 in [0, 2)
  EXPECT_EQ(near.pixelColor(kX0 + 25, y).rgb(), kRowBackground.rgb());                  // t = 2.5: the gap
}

TEST(TimelineWidgetEmpty, AnEmptyRunShowsItsMessage) {
  TimelineWidget w;
  w.resize(600, 200);
  w.SetTimeline(std::make_shared<Timeline>(BuildTimeline({}, {})), "run 3 has no events");
  EXPECT_EQ(w.message(), "run 3 has no events");
  const QImage img = w.grab().toImage();  // paints without a crash
  EXPECT_FALSE(img.isNull());
  QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(300, 100));
  EXPECT_FALSE(w.selected());
}

}  // namespace
}  // namespace braid::view

namespace braid::view {
namespace {

// A run seen whole whose communication is sparse (a 10 ns transfer every
// 100 ns, 11 of each 25 under a GEMM): its band's overlap and exposed
// pixels keep the proportions of the time (44 % overlapped). Before, every
// pixel column touched by exposed comm was drawn solid red: 1,328 red
// pixels against 279 green for a run overlapped 44 %.
TEST(TimelineWidgetBand, ZoomedOutTheColoursKeepTheProportionsOfTheTime) {
  std::vector<Event> events;
  for (int64_t i = 0; i < 100'000; ++i) {
    Event c;
    c.rank = 0;
    c.lane = 0;
    c.kind = EventKind::kCompute;
    c.name = "gemm";
    c.start_ns = i * 100;
    c.end_ns = i * 100 + 50;
    events.push_back(c);
    Event m = c;
    m.lane = 1;
    m.kind = EventKind::kComm;
    m.name = "send";
    m.start_ns = i * 100 + (i % 25 < 11 ? 40 : 60);
    m.end_ns = m.start_ns + 10;
    events.push_back(m);
  }
  const std::vector<LaneInfo> lanes = {{0, 0, "compute", "compute"}, {0, 1, "comm", "comm"}};
  TimelineWidget w;
  w.resize(TimelineWidget::kHeaderWidth + 8000, 400);
  w.SetTimeline(std::make_shared<Timeline>(BuildTimeline(events, lanes)));
  w.SetView({0, 1e7});
  const QImage img = w.grab().toImage();
  const int band = w.layout()[0].band_y;
  int64_t overlap = 0, exposed = 0;
  for (int y = band; y < band + TimelineWidget::kBandHeight; ++y) {
    for (int x = TimelineWidget::kHeaderWidth; x < img.width(); ++x) {
      const QRgb c = img.pixel(x, y);
      overlap += c == kOverlapColor.rgb() ? 1 : 0;
      exposed += c == kExposedColor.rgb() ? 1 : 0;
    }
  }
  ASSERT_GT(overlap + exposed, 0);
  EXPECT_NEAR(double(overlap) / double(overlap + exposed), 0.44, 0.02);
  // A tenth of the time is communication: about a tenth of the band's bar area.
  const double bar = double(TimelineWidget::kBandHeight - 5) * 8000;
  EXPECT_NEAR(double(overlap + exposed) / bar, 0.10, 0.02);
}

}  // namespace
}  // namespace braid::view
