#include "braid/view/main_window.h"

#include <QEventLoop>
#include <QFileDialog>
#include <QMenuBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <optional>

#include "braid/view/gemm_rows.h"
#include "braid/view/time_axis.h"
#include "run_loader.h"
#include "vertical_scroll.h"

namespace braid::view {

namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

QString RangeLine(const RangeStats& s) {
  return QString("selection %1 · compute %2 · comm %3 · overlap %4 (%5 %) per rank")
      .arg(Q(FormatDuration(double(s.duration_ns))), Q(FormatDuration(s.compute_ns)), Q(FormatDuration(s.comm_ns)),
           Q(FormatDuration(s.overlap_ns)))
      .arg(100 * s.overlap_ratio, 0, 'f', 1);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      pages_(new QStackedWidget),
      message_(new QLabel),
      run_title_(new QLabel),
      timeline_page_(new QWidget),
      timeline_(new TimelineWidget),
      compare_(new CompareView),
      session_(new SessionView),
      browser_(new RunBrowser),
      sessions_(new QListWidget),
      details_(new DetailsPanel),
      gemms_(new GemmPanel),
      progress_(new QProgressBar),
      cancel_(new QPushButton("Cancel")),
      loader_(new RunLoader(
          [this](uint64_t id, int64_t run, Result<LoadedRun> r, RunLoader::End end) {
            LoadDone(id, run, std::move(r), end != RunLoader::End::kSuperseded, end != RunLoader::End::kFinished);
          },
          [this](int64_t run, int64_t read, int64_t total) { LoadProgress(run, read, total); }, this)) {
  setWindowTitle("braid-view");
  message_->setAlignment(Qt::AlignCenter);
  message_->setWordWrap(true);
  // A long title must not widen the window (screenshots keep their size).
  run_title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  run_title_->setWordWrap(true);
  auto* tl = new QVBoxLayout(timeline_page_);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(run_title_);
  tl->addWidget(VerticalScroll(timeline_), 1);
  pages_->addWidget(message_);
  pages_->addWidget(timeline_page_);
  pages_->addWidget(compare_);
  pages_->addWidget(session_);

  auto* left = new QTabWidget;
  left->addTab(browser_, "Runs");
  left->addTab(sessions_, "Tuning sessions");
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(left);
  split->addWidget(pages_);
  // The details above an imported trace's GEMMs.
  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(details_);
  right->addWidget(gemms_);
  gemms_->hide();
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 6);
  split->setStretchFactor(2, 1);
  split->setSizes({380, 1000, 260});
  setCentralWidget(split);

  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open…", QKeySequence::Open, this, &MainWindow::OpenFromDialog);
  file->addAction("&Refresh", QKeySequence::Refresh, this, [this] { (void)Refresh(); });
  file->addAction("&Cancel loading", this, &MainWindow::CancelLoad);
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  progress_->setFormat("%v / %m events");
  progress_->setMaximumWidth(320);
  progress_->hide();
  cancel_->hide();
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, this, &MainWindow::CancelLoad);

  // Interactive opens never block: the result arrives with loadFinished.
  connect(browser_, &RunBrowser::runActivated, this, [this](qint64 id) { (void)OpenRun(id); });
  connect(browser_, &RunBrowser::compareRequested, this, [this](qint64 a, qint64 b) { (void)ShowCompare(a, b); });
  connect(sessions_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* i) { (void)ShowSession(i->data(Qt::UserRole).toLongLong()); });
  connect(session_, &SessionView::trialRunRequested, this, [this](qint64 id) { (void)OpenRun(id); });
  // A GEMM of the table: the timeline shows it, with a tenth of its length
  // either side.
  connect(gemms_, &GemmPanel::gemmClicked, this, [this](qint64 start, qint64 end) {
    const Timeline* t = timeline_->timeline();
    if (t == nullptr) return;
    const double b = double(start - t->origin_ns), e = double(end - t->origin_ns), pad = std::max(1.0, (e - b) / 10);
    timeline_->SetView({b - pad, e + pad});
  });
  for (TimelineWidget* w : {timeline_, compare_->first(), compare_->second()}) {
    connect(w, &TimelineWidget::eventSelected, this, [this, w](std::optional<EventRef> e) { ShowDetails(w, e); });
    connect(w, &TimelineWidget::rangeSelected, this, [this](const RangeStats& s) {
      details_->ShowRange(s);
      statusBar()->showMessage(RangeLine(s));
    });
  }
  ShowMessage("Open a Braid store (File ▸ Open, or braid-view FILE.db).");
}

MainWindow::~MainWindow() {
  // Stop the workers before the widgets their results would go to.
  delete loader_;
}

QString MainWindow::status_text() const { return statusBar()->currentMessage(); }

bool MainWindow::loading() const { return loader_->busy(); }

void MainWindow::set_load_batch(size_t batch) { loader_->set_batch(batch); }

QString MainWindow::message() const { return pages_->currentWidget() == message_ ? message_->text() : QString(); }

void MainWindow::ShowMessage(const QString& text) {
  message_->setText(text);
  pages_->setCurrentWidget(message_);
}

Status MainWindow::OpenStore(const std::string& path) {
  auto s = Store::Open(path, /*read_only=*/true);
  if (!s.ok()) {
    store_.reset();
    browser_->SetRuns({});
    sessions_->clear();
    ShowMessage(Q(s.status().message()));
    return s.status();
  }
  store_ = std::move(*s);
  setWindowTitle(Q("braid-view — " + path));
  Status st = Refresh();
  if (st.ok()) {
    ShowMessage(runs_.empty() ? Q(path + " holds no runs yet.")
                              : QString("%1 run(s). Double-click one to see its timeline.").arg(runs_.size()));
  }
  return st;
}

Status MainWindow::Refresh() {
  if (!store_) return Status::Invalid("no store is open");
  auto runs = LoadRunSummaries(*store_);
  if (!runs.ok()) {
    ShowMessage(Q(runs.status().message()));
    return runs.status();
  }
  runs_ = *runs;
  browser_->SetRuns(std::move(*runs));
  auto sessions = store_->ListSessions();
  if (!sessions.ok()) {
    ShowMessage(Q(sessions.status().message()));
    return sessions.status();
  }
  sessions_->clear();
  for (const StoredSession& s : *sessions) {
    auto* item = new QListWidgetItem(
        QString("%1 · %2 · %3 · %4").arg(s.id).arg(Q(s.info.workload_key), Q(s.info.topology), Q(s.status)));
    item->setData(Qt::UserRole, qlonglong(s.id));
    sessions_->addItem(item);
  }
  return Status::Ok();
}

Result<std::shared_ptr<const Timeline>> MainWindow::Load(int64_t run, RunSummary* summary) {
  if (!store_) return Status::Invalid("no store is open");
  BRAID_ASSIGN_OR_RETURN(auto t, LoadTimeline(*store_, run));
  auto rows = store_->LoadMetrics(run);
  auto meta = store_->GetRun(run);
  if (!rows.ok()) return rows.status();
  if (!meta.ok()) return meta.status();
  BRAID_ASSIGN_OR_RETURN(auto summarized, SummarizeRun(*meta, *rows));
  *summary = std::move(summarized);
  return std::shared_ptr<const Timeline>(std::make_shared<Timeline>(std::move(t)));
}

Status MainWindow::OpenRun(int64_t run) {
  if (!store_) return Status::Invalid("no store is open");
  (void)StartLoad(run);
  return Status::Ok();
}

uint64_t MainWindow::StartLoad(int64_t run) {
  const uint64_t id = loader_->Start(store_->path(), run);
  progress_->setRange(0, 0);  // busy until the first report gives the total
  progress_->show();
  cancel_->show();
  statusBar()->showMessage(QString("loading run %1 …").arg(run));
  return id;
}

Status MainWindow::ShowRun(int64_t run) {
  if (!store_) return Status::Invalid("no store is open");
  const uint64_t id = StartLoad(run);
  // The window keeps painting and answering input (Cancel included) while
  // this waits; every load ends, cancelled or not, and reports once.
  QEventLoop wait;
  std::optional<Status> outcome;
  const auto conn = connect(this, &MainWindow::loadFinished, &wait, [&] {
    if (last_done_id_ != id) return;
    outcome = last_done_;
    wait.quit();
  });
  while (!outcome) wait.exec();
  disconnect(conn);
  return *outcome;
}

void MainWindow::CancelLoad() { loader_->Cancel(); }

void MainWindow::LoadProgress(int64_t run, int64_t read, int64_t total) {
  (void)run;
  // QProgressBar counts in int: scale a count past 2^31 down.
  const int shift = total > INT32_MAX ? 10 : 0;
  progress_->setRange(0, int(std::max<int64_t>(1, total >> shift)));
  progress_->setValue(int(std::min(read, total) >> shift));
}

void MainWindow::LoadDone(uint64_t id, int64_t run, Result<LoadedRun> r, bool current, bool cancelled) {
  // A superseded load's successor is still running: its progress stays.
  if (current) {
    progress_->hide();
    cancel_->hide();
  }
  Status st = r.ok() ? Status::Ok() : r.status();
  if (cancelled) {
    st = LoadCancelled(run);
    // The view stays as it was; only the load that was asked to stop says so.
    if (current) statusBar()->showMessage(Q(st.message()));
  } else if (!r.ok()) {
    statusBar()->clearMessage();
    ShowMessage(Q(st.message()));
  } else {
    statusBar()->clearMessage();
    ShowLoadedRun(run, *r);
  }
  last_done_id_ = id;
  last_done_ = st;
  emit loadFinished(run, st.ok());
}

void MainWindow::ShowLoadedRun(int64_t run, LoadedRun& loaded) {
  const RunSummary& s = loaded.summary;
  const bool empty = loaded.timeline->empty();
  timeline_->SetTimeline(std::move(loaded.timeline), std::move(loaded.bands), QString("run %1 has no events").arg(run));
  ops_ = s.ops;
  run_title_->setText(QString("run %1 · %2 · %3 · %4 %5 · makespan %6 · overlap %7 % · exposed comm %8 · tail %9")
                          .arg(run)
                          .arg(Q(s.config.empty() ? s.source : s.config), Q(s.workload), Q(s.backend), Q(s.topology),
                               Q(FormatDuration(s.makespan_ns)))
                          .arg(100 * s.overlap_ratio, 0, 'f', 1)
                          .arg(Q(FormatDuration(s.exposed_comm_ns)), Q(FormatDuration(s.tail_ns))) +
                      (s.efficiency ? QString(" · efficiency %1").arg(*s.efficiency, 0, 'f', 3) : QString()));
  // A layer run opens with its GEMMs' own figures (an event's click replaces them).
  details_->ShowLines(OpSummaryLines(s.ops));
  // An imported trace, GEMM by GEMM (as `braid report --by-gemm`).
  if (IsImportedBackend(s.backend) && timeline_->timeline() != nullptr) {
    std::vector<GemmOverlapRow> rows = GemmRowsOf(*timeline_->timeline());
    timeline_->SetEventNotes(GemmNotesOf(rows));
    gemms_->setVisible(!rows.empty());
    gemms_->ShowRows(std::move(rows));
  } else {
    gemms_->ShowRows({});
    gemms_->hide();
  }
  pages_->setCurrentWidget(timeline_page_);
  if (empty) statusBar()->showMessage(QString("run %1 has no events").arg(run));
}

Status MainWindow::ShowCompare(int64_t a, int64_t b) {
  RunSummary sa, sb;
  auto ta = Load(a, &sa);
  auto tb = ta.ok() ? Load(b, &sb) : Result<std::shared_ptr<const Timeline>>(ta.status());
  if (!ta.ok() || !tb.ok()) {
    const Status& st = ta.ok() ? tb.status() : ta.status();
    ShowMessage(Q(st.message()));
    return st;
  }
  compare_->SetRuns(*ta, sa, *tb, sb);
  details_->Clear();
  pages_->setCurrentWidget(compare_);
  return Status::Ok();
}

Status MainWindow::ShowSession(int64_t session) {
  if (!store_) return Status::Invalid("no store is open");
  auto s = store_->GetSession(session);
  if (!s.ok()) {
    ShowMessage(Q(s.status().message()));
    return s.status();
  }
  auto rows = LoadTrialRows(*store_, session);
  if (!rows.ok()) {
    ShowMessage(Q(rows.status().message()));
    return rows.status();
  }
  session_->SetSession(*s, std::move(*rows));
  pages_->setCurrentWidget(session_);
  return Status::Ok();
}

void MainWindow::ShowDetails(TimelineWidget* w, std::optional<EventRef> e) {
  const Timeline* t = w->timeline();
  if (!e || !t) {
    details_->Clear();
    return;
  }
  const TimelineRow& row = t->rows[e->row];
  const std::vector<OpNote> ops = w == timeline_ ? ops_ : std::vector<OpNote>{};
  // A loaded timeline lacks the details: read this one event whole.
  Result<Event> whole = store_ ? EventWithDetails(*store_, *t, *e) : Result<Event>(EventOf(*t, *e));
  if (!whole.ok()) {
    std::vector<DetailLine> lines = EventDetails(EventOf(*t, *e), row.name, t->origin_ns, ops);
    lines.push_back({"details", whole.status().message()});
    details_->ShowLines(lines);
    return;
  }
  details_->ShowLines(EventDetails(*whole, row.name, t->origin_ns, ops));
}

void MainWindow::OpenFromDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, "Open a Braid store", {}, "Braid stores (*.db);;All files (*)");
  if (!path.isEmpty()) (void)OpenStore(path.toStdString());
}

}  // namespace braid::view
