// The window over real stores: bad files give one message and write nothing,
// the run browser, the details panel, compare, sessions, refresh under a
// concurrent writer, and the braid-view command.
#include "braid/view/main_window.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <QAbstractItemModelTester>
#include <QImage>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTest>
#include <cstdio>
#include <fstream>

#include "braid/view/kind_colors.h"
#include "gui_test_util.h"

namespace braid::view {
namespace {

using testing::FileBytes;
using testing::TempDir;

// Waits for the load an action started (runs the event loop, 60 s at most);
// true when it showed its run.
bool LoadShowsRun(MainWindow& w) {
  QSignalSpy done(&w, &MainWindow::loadFinished);
  return done.wait(60'000) && done[0][1].toBool();
}

class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = dir.Path("runs.db");
    WriteFixture();
    bytes = FileBytes(path);  // after the writer closed (and checkpointed)
    ASSERT_FALSE(bytes.empty());
    w.resize(1600, 1000);
  }
  void TearDown() override { EXPECT_TRUE(FileBytes(path) == bytes) << "the viewer changed the store"; }

  void WriteFixture() {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    hand = testing::WriteRun(**store, testing::HandEvents(), testing::HandLanes());
    ring = testing::WriteSimRun(**store, testing::MakeSimRun("ring", 2));
    chunked = testing::WriteSimRun(**store, testing::MakeSimRun("chunked", 4));
    empty = testing::WriteRun(**store, {}, {}, R"({"algorithm":"serial"})");
    SessionInfo info{"gemm_rs M=8192 N=8192 K=8192 bf16 P=4", "h100-sxm", "sim", "exhaustive", 3, "{}"};
    auto s = (*store)->CreateSession(info);
    ASSERT_TRUE(s.ok());
    session = *s;
    for (const auto& [algo, chunks, samples] : std::vector<std::tuple<std::string, int, std::string>>{
             {"serial", 1, "[300,310,290]"}, {"ring", 2, "[150,160,140]"}, {"chunked", 4, "[200,210,190]"}}) {
      const testing::SimRun r = testing::MakeSimRun(algo, chunks);
      TrialInfo t;
      t.config_json = r.meta.config_json;
      t.key = "gemm_rs|" + algo + "|r0";
      t.samples_json = samples;
      auto ids = (*store)->AddTrialWithRun(session, t, r.meta, r.lanes, r.events, r.metrics);
      ASSERT_TRUE(ids.ok()) << ids.status().message();
      trial_runs.push_back(ids->run);
    }
  }

  TempDir dir;
  std::string path, bytes;
  int64_t hand = 0, ring = 0, chunked = 0, empty = 0, session = 0;
  std::vector<int64_t> trial_runs;
  MainWindow w;
};

TEST_F(MainWindowTest, RunBrowserListsEveryRunSortableAndFilterable) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  QAbstractItemModelTester tester(w.browser()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  QSortFilterProxyModel* proxy = w.browser()->proxy();
  EXPECT_EQ(proxy->rowCount(), 7);  // 4 runs + 3 trial runs
  QTest::keyClicks(w.browser()->filter(), "chunked");
  EXPECT_EQ(proxy->rowCount(), 2);
  w.browser()->filter()->clear();
  EXPECT_EQ(proxy->rowCount(), 7);
  // Sorting by makespan puts the hand run (260 ns) first and is numeric.
  w.browser()->table()->sortByColumn(RunTableModel::kMakespan, Qt::AscendingOrder);
  EXPECT_EQ(proxy->data(proxy->index(0, RunTableModel::kId)).toLongLong(), empty);  // 0 ns
  EXPECT_EQ(proxy->data(proxy->index(1, RunTableModel::kId)).toLongLong(), hand);
  EXPECT_EQ(proxy->data(proxy->index(1, RunTableModel::kMakespan)).toString(), "260 ns");
  EXPECT_EQ(proxy->data(proxy->index(1, RunTableModel::kOverlap)).toString(), "62.5 %");
}

TEST_F(MainWindowTest, ActivatingARunShowsItsTimelineAndAClickFillsTheDetails) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  w.show();
  emit w.browser()->runActivated(hand);
  ASSERT_TRUE(LoadShowsRun(w));
  ASSERT_NE(w.timeline()->timeline(), nullptr);
  EXPECT_EQ(w.timeline()->timeline()->run, hand);
  EXPECT_EQ(w.message(), "");
  TimelineWidget* t = w.timeline();
  t->SetView({0, t->plot_width()});            // 1 ns per px
  const int y = t->layout()[0].row_y[1] + 10;  // rank 0, comm lane
  QTest::mouseClick(t, Qt::LeftButton, Qt::NoModifier, QPoint(int(t->XOfTime(100)), y));
  EXPECT_EQ(w.details()->Value("name").toStdString(), "send0");
  EXPECT_EQ(w.details()->Value("kind").toStdString(), "comm");
  EXPECT_EQ(w.details()->Value("rank").toStdString(), "0");
  EXPECT_EQ(w.details()->Value("lane").toStdString(), "1 (comm)");
  EXPECT_EQ(w.details()->Value("start").toStdString(), "50 ns");
  EXPECT_EQ(w.details()->Value("duration").toStdString(), "100 ns");
  EXPECT_EQ(w.details()->Value("bytes").toStdString(), "1.00 MiB");
  EXPECT_EQ(w.details()->Value("achieved").toStdString(), "10485.8 GB/s");  // 1 MiB in 100 ns
  EXPECT_EQ(w.details()->Value("peer").toStdString(), "1");
  QTest::mouseClick(t, Qt::LeftButton, Qt::NoModifier, QPoint(int(t->XOfTime(50)), t->layout()[0].row_y[0] + 10));
  EXPECT_EQ(w.details()->Value("achieved").toStdString(), "20000.0 TFLOP/s");  // 2e9 FLOPs in 100 ns
  EXPECT_EQ(w.details()->Value("chunk").toStdString(), "0");
}

TEST_F(MainWindowTest, CompareShowsTwoTimelinesWithOneZoomAndTheirDifferences) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  // Select the chunked and ring runs in the browser and press Compare.
  QTableView* table = w.browser()->table();
  QSortFilterProxyModel* proxy = w.browser()->proxy();
  for (int row = 0; row < proxy->rowCount(); ++row) {
    const qlonglong id = proxy->data(proxy->index(row, RunTableModel::kId)).toLongLong();
    if (id == chunked || id == ring) {
      table->selectionModel()->select(proxy->index(row, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
  }
  QTest::mouseClick(w.browser()->compare_button(), Qt::LeftButton);
  CompareView* c = w.compare();
  ASSERT_NE(c->first()->timeline(), nullptr);
  EXPECT_EQ(c->first()->timeline()->run, ring);  // A is the upper row (ring was stored first)
  EXPECT_EQ(c->second()->timeline()->run, chunked);
  EXPECT_EQ(c->first()->view().begin, c->second()->view().begin);
  c->first()->SetView(c->first()->view().Zoomed(0.25, 0.3));
  EXPECT_EQ(c->second()->view().begin, c->first()->view().begin);
  EXPECT_EQ(c->second()->view().end, c->first()->view().end);
  c->second()->SetView(c->second()->view().Panned(1000));
  EXPECT_EQ(c->first()->view().begin, c->second()->view().begin);
  QTableWidget* m = c->metrics();
  ASSERT_EQ(m->rowCount(), 9);
  EXPECT_EQ(m->item(0, 0)->text(), "makespan_ns");
  EXPECT_FALSE(m->item(0, 3)->text().isEmpty());
  EXPECT_NE(m->item(0, 1)->text(), m->item(0, 2)->text());  // ring and chunked differ
}

// Zoom and pan move time, not pixels: every timeline (the run's and compare's
// two) sits in a scroll area that scrolls rows only and gives it its width.
TEST_F(MainWindowTest, TimelinesScrollRowsOnlyAndTakeTheViewsWidth) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  w.show();
  emit w.browser()->runActivated(ring);
  ASSERT_TRUE(LoadShowsRun(w));
  int found = 0;
  for (TimelineWidget* t : {w.timeline(), w.compare()->first(), w.compare()->second()}) {
    for (QScrollArea* area : w.findChildren<QScrollArea*>()) {
      if (area->widget() != t) continue;
      ++found;
      EXPECT_TRUE(area->widgetResizable());
      EXPECT_EQ(area->horizontalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
      EXPECT_EQ(area->verticalScrollBarPolicy(), Qt::ScrollBarAsNeeded);
    }
  }
  EXPECT_EQ(found, 3);
  QScrollArea* run_area = nullptr;
  for (QScrollArea* area : w.findChildren<QScrollArea*>()) {
    if (area->widget() == w.timeline()) run_area = area;
  }
  ASSERT_NE(run_area, nullptr);
  EXPECT_EQ(w.timeline()->width(), run_area->viewport()->width());
}

TEST_F(MainWindowTest, SessionTrialsSortByTimeAndOpenTheirTimeline) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  ASSERT_EQ(w.sessions()->count(), 1);
  ASSERT_TRUE(w.ShowSession(session).ok());
  SessionView* s = w.session_view();
  QAbstractItemModelTester tester(s->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  QSortFilterProxyModel* p = s->proxy();
  ASSERT_EQ(p->rowCount(), 3);
  s->table()->sortByColumn(TrialTableModel::kMedian, Qt::AscendingOrder);
  EXPECT_EQ(p->data(p->index(0, TrialTableModel::kConfig)).toString().left(4), "ring");
  EXPECT_EQ(p->data(p->index(0, TrialTableModel::kSpeedup)).toString(), "2.000×");
  EXPECT_EQ(p->data(p->index(2, TrialTableModel::kConfig)).toString().left(6), "serial");
  // The plot has a dot for each trial; clicking the ring trial's dot opens its run.
  s->plot()->resize(600, 260);
  const auto ring_dot = s->plot()->PointOf(1);
  ASSERT_TRUE(ring_dot);
  QTest::mouseClick(s->plot(), Qt::LeftButton, Qt::NoModifier, ring_dot->toPoint());
  ASSERT_TRUE(LoadShowsRun(w));
  ASSERT_NE(w.timeline()->timeline(), nullptr);
  EXPECT_EQ(w.timeline()->timeline()->run, trial_runs[1]);
  // Activating a row of the table does the same.
  ASSERT_TRUE(w.ShowSession(session).ok());
  emit s->table()->activated(p->index(2, 0));
  ASSERT_TRUE(LoadShowsRun(w));
  EXPECT_EQ(w.timeline()->timeline()->run, trial_runs[0]);
}

TEST_F(MainWindowTest, AMissingRunAnEmptyRunAndAMissingSessionAreMessages) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  const Status s = w.ShowRun(99);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(w.message().contains("no run 99")) << w.message().toStdString();
  ASSERT_TRUE(w.ShowRun(empty).ok());
  EXPECT_TRUE(w.timeline()->timeline()->empty());
  EXPECT_EQ(w.timeline()->message(), QString("run %1 has no events").arg(empty));
  EXPECT_EQ(w.ShowSession(42).code(), StatusCode::kNotFound);
  EXPECT_TRUE(w.message().contains("no tuning session 42"));
  EXPECT_EQ(w.ShowCompare(hand, 77).code(), StatusCode::kNotFound);
}

TEST_F(MainWindowTest, RefreshShowsRunsAWriterFinishedWhileTheStoreWasOpen) {
  ASSERT_TRUE(w.OpenStore(path).ok());
  ASSERT_EQ(w.browser()->proxy()->rowCount(), 7);
  {
    // A concurrent writer (as a running `braid tune` is), WAL mode.
    auto writer = Store::Open(path);
    ASSERT_TRUE(writer.ok());
    testing::WriteRun(**writer, testing::HandEvents(), testing::HandLanes());
    // The viewer still shows its snapshot, and reads whole runs meanwhile.
    EXPECT_EQ(w.browser()->proxy()->rowCount(), 7);
    EXPECT_TRUE(w.ShowRun(ring).ok());
    ASSERT_TRUE(w.Refresh().ok());
    EXPECT_EQ(w.browser()->proxy()->rowCount(), 8);
  }
  bytes = FileBytes(path);  // the writer changed it, not the viewer
  ASSERT_TRUE(w.Refresh().ok());
  EXPECT_EQ(w.browser()->proxy()->rowCount(), 8);
}

TEST(MainWindowBadStore, MissingNotAStoreForeignAndNewerFilesGiveOneMessage) {
  TempDir dir;
  MainWindow w;
  Status s = w.OpenStore(dir.Path("missing.db"));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_FALSE(w.message().isEmpty());
  EXPECT_FALSE(std::filesystem::exists(dir.Path("missing.db")));

  const std::string text = dir.Path("notes.db");
  std::ofstream(text) << "just some text, not a database\n";
  s = w.OpenStore(text);
  EXPECT_TRUE(s.is_user_error());
  EXPECT_TRUE(w.message().contains("not a Braid store")) << w.message().toStdString();
  EXPECT_TRUE(FileBytes(text) == "just some text, not a database\n");

  const std::string foreign = dir.Path("foreign.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const std::string foreign_bytes = FileBytes(foreign);
  s = w.OpenStore(foreign);
  EXPECT_TRUE(s.is_user_error());
  EXPECT_FALSE(w.message().isEmpty());
  EXPECT_TRUE(FileBytes(foreign) == foreign_bytes);

  const std::string newer = dir.Path("newer.db");
  ASSERT_TRUE(Store::Open(newer).ok());
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const std::string newer_bytes = FileBytes(newer);
  s = w.OpenStore(newer);
  EXPECT_TRUE(s.is_user_error());
  EXPECT_TRUE(w.message().contains("newer")) << w.message().toStdString();
  EXPECT_TRUE(FileBytes(newer) == newer_bytes);
  EXPECT_EQ(w.browser()->proxy()->rowCount(), 0);
}

TEST(MainWindowBadStore, ADamagedStoreIsAMessageNotACrash) {
  TempDir dir;
  const std::string path = dir.Path("damaged.db");
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    for (int i = 0; i < 20; ++i) testing::WriteRun(**store, testing::DenseEvents(2000, 5, 5), {});
  }
  // Overwrite the second half of the file (event pages) with garbage.
  std::string bytes = FileBytes(path);
  ASSERT_GT(bytes.size(), 65536u);
  for (size_t i = bytes.size() / 2; i < bytes.size(); ++i) bytes[i] = char(i * 131 % 251);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  MainWindow w;
  Status s = w.OpenStore(path);
  for (int64_t run = 1; s.ok() && run <= 20; ++run) s = w.ShowRun(run);
  EXPECT_FALSE(s.ok()) << "some part of the damaged store must fail to read";
  EXPECT_FALSE(w.message().isEmpty());
  EXPECT_EQ(w.message().count('\n'), 0) << w.message().toStdString();
  EXPECT_TRUE(FileBytes(path) == bytes);
}

// The command: exit codes and the screenshot.
int RunView(const std::string& args, std::string* err) {
  const std::string cmd = std::string(BRAID_VIEW_BINARY) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return -1;
  char buf[512];
  err->clear();
  while (fgets(buf, sizeof buf, f)) *err += buf;
  const int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST_F(MainWindowTest, CommandScreenshotDrawsTheRunWithItsBandAndWritesNothingToTheStore) {
  const std::string png = dir.Path("shot.png");
  std::string out;
  ASSERT_EQ(RunView("--screenshot " + png + " --db " + path + " --run " + std::to_string(chunked) + " --compare " +
                        std::to_string(ring) + " --size 1200x800",
                    &out),
            0)
      << out;
  QImage img(QString::fromStdString(png));
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(img.width(), 1200);
  EXPECT_EQ(img.height(), 800);
  // The band colours are in the picture.
  bool overlap = false, tail = false;
  for (int y = 0; y < img.height() && !(overlap && tail); ++y) {
    for (int x = 0; x < img.width(); ++x) {
      overlap = overlap || img.pixelColor(x, y).rgb() == kOverlapColor.rgb();
      tail = tail || img.pixelColor(x, y).rgb() == kTailColor.rgb();
    }
  }
  EXPECT_TRUE(overlap);
  EXPECT_TRUE(tail);
}

TEST_F(MainWindowTest, CommandRefusesBadInputWithExitTwoAndOneLine) {
  std::string out;
  EXPECT_EQ(RunView("--bogus", &out), 2);
  EXPECT_NE(out.find("unknown flag '--bogus'"), std::string::npos) << out;
  EXPECT_EQ(RunView(dir.Path("missing.db") + " --run 1", &out), 2);
  EXPECT_EQ(RunView(path + " --run 99 --screenshot " + dir.Path("x.png"), &out), 2);
  EXPECT_NE(out.find("no run 99"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("x.png")));
  EXPECT_EQ(RunView(path + " --session 5 --screenshot " + dir.Path("x.png"), &out), 2);
  EXPECT_EQ(RunView(path + " --run 1 --screenshot " + dir.Path("no/such/folder/x.png"), &out), 2);
  EXPECT_NE(out.find("folder does not exist"), std::string::npos) << out;
  const std::string text = dir.Path("t.txt");
  std::ofstream(text) << "hello";
  EXPECT_EQ(RunView(text + " --run 1 --screenshot " + dir.Path("x.png"), &out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  // A store with a table dropped: one line naming it, before any window.
  const std::string damaged = dir.Path("damaged.db");
  std::filesystem::copy_file(path, damaged);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(damaged.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE events", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(RunView(damaged + " --run 1 --screenshot " + dir.Path("x.png"), &out), 2);
  EXPECT_NE(out.find("damaged store: " + damaged + " has no table 'events'"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("x.png")));
}

// The screenshot goes through the safe write path: special files are
// refused at once (a FIFO would block, /dev/full would take a partial
// write), and a failed write leaves the old picture whole.
TEST_F(MainWindowTest, CommandScreenshotIsWrittenSafely) {
  std::string out;
  const std::string fifo = dir.Path("shot.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(RunView("--screenshot " + fifo + " --db " + path + " --run 1", &out), 2);
  EXPECT_NE(out.find("FIFO"), std::string::npos) << out;
  EXPECT_EQ(RunView("--screenshot /dev/full --db " + path + " --run 1", &out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(RunView("--screenshot " + dir.dir().string() + " --db " + path + " --run 1", &out), 2);

  // An old picture is replaced whole, keeps its mode, and no temporary stays.
  const std::string png = dir.Path("keep.png");
  std::ofstream(png) << "old picture";
  ASSERT_EQ(chmod(png.c_str(), 0640), 0);
  ASSERT_EQ(RunView("--screenshot " + png + " --db " + path + " --run 1 --size 400x300", &out), 0) << out;
  EXPECT_FALSE(QImage(QString::fromStdString(png)).isNull());
  struct stat st {};
  ASSERT_EQ(stat(png.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  for (const auto& e : std::filesystem::directory_iterator(dir.dir())) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.find("keep") == std::string::npos || name == "keep.png") << name << " was left behind";
  }
}

}  // namespace
}  // namespace braid::view
