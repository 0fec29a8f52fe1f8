// braid-view's window: the run browser and session list on the left, the
// timeline / comparison / session in the middle, the details on the right.
// The store is opened read-only and read through db/'s API; a file that
// cannot be shown leaves one message in the window.
//
// A run loads on a worker thread with its own read-only connection
// (RunLoader): the status bar shows events read / total and a Cancel
// button, and the event loop keeps turning. A cancelled load leaves the
// view as it was ("loading run 7 cancelled" in the status bar); opening
// another run while one loads cancels the first.
#pragma once

#include <QLabel>
#include <QListWidget>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <memory>

#include "braid/store.h"
#include "braid/view/compare_view.h"
#include "braid/view/details_panel.h"
#include "braid/view/gemm_panel.h"
#include "braid/view/run_browser.h"
#include "braid/view/run_load.h"
#include "braid/view/session_view.h"
#include "braid/view/timeline_widget.h"

namespace braid::view {

class RunLoader;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Each returns what went wrong (also shown in the window).
  Status OpenStore(const std::string& path);
  Status Refresh();  // a fresh snapshot: runs a running `braid tune` finished since appear
  // Starts loading `run` on the worker and returns at once (Invalid without
  // a store); loadFinished reports the outcome.
  Status OpenRun(int64_t run);
  // OpenRun, then runs the event loop until that load ends: its outcome
  // (Unavailable "loading run 7 cancelled" when cancelled or superseded).
  Status ShowRun(int64_t run);
  // The load in progress stops at its next batch; the view stays as it was.
  void CancelLoad();
  bool loading() const;
  // Events per batch of later loads: how often progress and cancel are
  // looked at (tests make it small).
  void set_load_batch(size_t batch);
  Status ShowCompare(int64_t a, int64_t b);
  Status ShowSession(int64_t session);

  TimelineWidget* timeline() { return timeline_; }
  DetailsPanel* details() { return details_; }
  // An imported trace's GEMMs (hidden for other runs).
  GemmPanel* gemms() { return gemms_; }
  RunBrowser* browser() { return browser_; }
  CompareView* compare() { return compare_; }
  SessionView* session_view() { return session_; }
  QListWidget* sessions() { return sessions_; }
  QProgressBar* load_progress() { return progress_; }
  QPushButton* cancel_button() { return cancel_; }
  // The message page's text ("" when a view is shown).
  QString message() const;
  // The status bar's text ("loading run 7 cancelled", ...).
  QString status_text() const;

 signals:
  // A load OpenRun started has ended: shown, failed (the message page says
  // why) or cancelled (the status bar says so).
  void loadFinished(qint64 run, bool shown);

 private:
  void ShowMessage(const QString& text);
  void ShowDetails(TimelineWidget* w, std::optional<EventRef> e);
  Result<std::shared_ptr<const Timeline>> Load(int64_t run, RunSummary* summary);
  void OpenFromDialog();
  uint64_t StartLoad(int64_t run);  // the loader's id for it
  void LoadProgress(int64_t run, int64_t read, int64_t total);
  void LoadDone(uint64_t id, int64_t run, Result<LoadedRun> r, bool current, bool cancelled);
  void ShowLoadedRun(int64_t run, LoadedRun& loaded);

  std::unique_ptr<Store> store_;
  std::vector<RunSummary> runs_;
  std::vector<OpNote> ops_;  // the shown run's layer ops (its events' pass and method)
  QStackedWidget* pages_;
  QLabel* message_;
  QLabel* run_title_;
  QWidget* timeline_page_;
  TimelineWidget* timeline_;
  CompareView* compare_;
  SessionView* session_;
  RunBrowser* browser_;
  QListWidget* sessions_;
  DetailsPanel* details_;
  GemmPanel* gemms_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  RunLoader* loader_;
  // The last finished load's id and outcome, for ShowRun to wait on.
  uint64_t last_done_id_ = 0;
  Status last_done_;
};

}  // namespace braid::view
