// The window loads a run on a worker: the event loop keeps turning, the
// status bar shows events read / total and a Cancel button, a cancel keeps
// the previous run on screen and says so, a newer open supersedes an older
// one, and a damaged store is one message.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <memory>
#include <string>
#include <vector>

#include "braid/view/main_window.h"
#include "gui_test_util.h"

namespace braid::view {
namespace {

using testing::TempDir;

constexpr int kBigEvents = 200'000;
constexpr int kWaitMs = 120'000;  // a bound, not an expectation: a loaded machine may be slow

class RunLoadingTest : public ::testing::Test {
 protected:
  // One store for the suite: writing 200,000 events takes a while.
  static void SetUpTestSuite() {
    dir = new TempDir;
    path = dir->Path("runs.db");
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    hand = testing::WriteRun(**store, testing::HandEvents(), testing::HandLanes());
    big = testing::WriteRun(**store, testing::DenseEvents(kBigEvents, 5, 5), {});
  }
  static void TearDownTestSuite() {
    delete dir;
    dir = nullptr;
  }
  void SetUp() override {
    w.resize(1200, 800);
    ASSERT_TRUE(w.OpenStore(path).ok());
    ASSERT_TRUE(w.ShowRun(hand).ok());
    // Small batches: many progress reports and cancel checks per load.
    w.set_load_batch(1000);
  }
  static inline TempDir* dir = nullptr;
  static inline std::string path;
  static inline int64_t hand = 0, big = 0;
  MainWindow w;
};

TEST_F(RunLoadingTest, TheEventLoopTurnsWhileARunLoadsWithProgressThenTheTimelineShows) {
  w.show();
  QSignalSpy done(&w, &MainWindow::loadFinished);
  // What the UI thread sees between batches.
  int ticks_while_loading = 0;
  QTimer tick;
  tick.setInterval(1);
  QObject::connect(&tick, &QTimer::timeout, [&] { ticks_while_loading += w.loading() ? 1 : 0; });
  std::vector<int> values;
  bool bar_visible = false;
  QObject::connect(w.load_progress(), &QProgressBar::valueChanged, [&](int v) {
    values.push_back(v);
    bar_visible = bar_visible || (w.load_progress()->isVisible() && w.cancel_button()->isVisible());
  });
  tick.start();
  ASSERT_TRUE(w.OpenRun(big).ok());
  EXPECT_TRUE(w.loading());
  EXPECT_TRUE(w.load_progress()->isVisible());
  EXPECT_TRUE(w.status_text().contains("loading run")) << w.status_text().toStdString();
  // Still the previous run until the new one is complete.
  EXPECT_EQ(w.timeline()->timeline()->run, hand);
  ASSERT_TRUE(done.wait(kWaitMs));
  tick.stop();
  ASSERT_EQ(done.count(), 1);
  EXPECT_EQ(done[0][0].toLongLong(), big);
  EXPECT_TRUE(done[0][1].toBool());

  // The loop turned during the load (timer ticks and queued progress reports
  // were handled before the result arrived).
  EXPECT_GE(ticks_while_loading, 2);
  ASSERT_GE(values.size(), 2u);
  EXPECT_TRUE(bar_visible);
  EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
  EXPECT_EQ(w.load_progress()->maximum(), kBigEvents);
  EXPECT_EQ(values.back(), kBigEvents);
  // Done: the timeline is the new run, the progress is gone.
  ASSERT_NE(w.timeline()->timeline(), nullptr);
  EXPECT_EQ(w.timeline()->timeline()->run, big);
  EXPECT_EQ(w.timeline()->timeline()->event_count, size_t(kBigEvents));
  EXPECT_EQ(w.timeline()->bands().size(), 1u);
  EXPECT_EQ(w.message(), "");
  EXPECT_FALSE(w.loading());
  EXPECT_FALSE(w.load_progress()->isVisible());
  EXPECT_FALSE(w.cancel_button()->isVisible());
}

TEST_F(RunLoadingTest, CancelKeepsThePreviousRunAndSaysSo) {
  w.show();
  QSignalSpy done(&w, &MainWindow::loadFinished);
  // Cancel as the first batch is reported: the load is under way.
  int value_at_cancel = -1;
  QObject::connect(w.load_progress(), &QProgressBar::valueChanged, [&](int v) {
    if (v > 0 && value_at_cancel < 0) {
      value_at_cancel = v;
      QTest::mouseClick(w.cancel_button(), Qt::LeftButton);
    }
  });
  ASSERT_TRUE(w.OpenRun(big).ok());
  ASSERT_TRUE(done.wait(kWaitMs));
  ASSERT_EQ(done.count(), 1);
  EXPECT_FALSE(done[0][1].toBool());
  EXPECT_GT(value_at_cancel, 0);
  EXPECT_LT(value_at_cancel, kBigEvents);
  EXPECT_EQ(w.status_text(), QString("loading run %1 cancelled").arg(big));
  ASSERT_NE(w.timeline()->timeline(), nullptr);
  EXPECT_EQ(w.timeline()->timeline()->run, hand);
  EXPECT_EQ(w.message(), "");
  EXPECT_FALSE(w.loading());
  EXPECT_FALSE(w.load_progress()->isVisible());

  // ShowRun reports the cancel as its outcome, and the window still works.
  QTimer::singleShot(0, &w, [this] { w.CancelLoad(); });
  const Status s = w.ShowRun(big);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "loading run " + std::to_string(big) + " cancelled");
  EXPECT_EQ(w.timeline()->timeline()->run, hand);
  EXPECT_TRUE(w.ShowRun(big).ok());
  EXPECT_EQ(w.timeline()->timeline()->run, big);
}

TEST_F(RunLoadingTest, OpeningAnotherRunWhileOneLoadsCancelsTheFirst) {
  QSignalSpy done(&w, &MainWindow::loadFinished);
  ASSERT_TRUE(w.OpenRun(big).ok());
  ASSERT_TRUE(w.OpenRun(hand).ok());
  while (done.count() < 2) ASSERT_TRUE(done.wait(kWaitMs));
  // Each load reports once; only the later one is shown.
  for (const QList<QVariant>& d : done) {
    EXPECT_EQ(d[1].toBool(), d[0].toLongLong() == hand) << d[0].toLongLong();
  }
  EXPECT_EQ(w.timeline()->timeline()->run, hand);
  EXPECT_FALSE(w.loading());
  EXPECT_FALSE(w.load_progress()->isVisible());
  EXPECT_FALSE(w.status_text().contains("cancelled")) << "superseded, not cancelled by the user";
}

TEST_F(RunLoadingTest, ClosingTheWindowWhileARunLoadsStopsTheLoad) {
  auto other = std::make_unique<MainWindow>();
  ASSERT_TRUE(other->OpenStore(path).ok());
  ASSERT_TRUE(other->OpenRun(big).ok());
  EXPECT_TRUE(other->loading());
  other.reset();  // joins the worker (cancelled at its next batch); nothing is delivered to a dead window
  QTest::qWait(10);
}

TEST(RunLoadingDamaged, AStoreDamagedHalfWayIsItsOneLineErrorAsAMessage) {
  TempDir dir;
  const std::string path = dir.Path("damaged.db");
  int64_t run = 0;
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    run = testing::WriteRun(**store, testing::DenseEvents(20'000, 5, 5), {});
  }
  // The record claims more events than there are: found after the last batch.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE runs SET event_count = 30000", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  MainWindow w;
  ASSERT_TRUE(w.OpenStore(path).ok());
  w.set_load_batch(1000);
  const Status s = w.ShowRun(run);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("damaged store"), std::string::npos) << s.message();
  EXPECT_EQ(w.message().toStdString(), s.message());
  EXPECT_EQ(w.message().count('\n'), 0);
  EXPECT_FALSE(w.loading());
  EXPECT_FALSE(w.load_progress()->isVisible());
}

}  // namespace
}  // namespace braid::view
