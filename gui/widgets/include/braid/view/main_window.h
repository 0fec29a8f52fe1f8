// braid-view's window: the run browser and session list on the left, the
// timeline / comparison / session in the middle, the details on the right.
// The store is opened read-only and read through db/'s API; a file that
// cannot be shown leaves one message in the window.
#pragma once

#include <QLabel>
#include <QListWidget>
#include <QMainWindow>
#include <QStackedWidget>
#include <memory>

#include "braid/store.h"
#include "braid/view/compare_view.h"
#include "braid/view/details_panel.h"
#include "braid/view/run_browser.h"
#include "braid/view/session_view.h"
#include "braid/view/timeline_widget.h"

namespace braid::view {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Each returns what went wrong (also shown in the window).
  Status OpenStore(const std::string& path);
  Status Refresh();  // a fresh snapshot: runs a running `braid tune` finished since appear
  Status ShowRun(int64_t run);
  Status ShowCompare(int64_t a, int64_t b);
  Status ShowSession(int64_t session);

  TimelineWidget* timeline() { return timeline_; }
  DetailsPanel* details() { return details_; }
  RunBrowser* browser() { return browser_; }
  CompareView* compare() { return compare_; }
  SessionView* session_view() { return session_; }
  QListWidget* sessions() { return sessions_; }
  // The message page's text ("" when a view is shown).
  QString message() const;

 private:
  void ShowMessage(const QString& text);
  void ShowDetails(TimelineWidget* w, std::optional<EventRef> e);
  Result<std::shared_ptr<const Timeline>> Load(int64_t run, RunSummary* summary);
  void OpenFromDialog();

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
};

}  // namespace braid::view
