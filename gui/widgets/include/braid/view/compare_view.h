// Two runs on one time axis (each from its own start) with synchronized zoom
// and pan, and their metrics side by side with differences.
#pragma once

#include <QLabel>
#include <QTableWidget>
#include <QWidget>
#include <memory>

#include "braid/view/run_summary.h"
#include "braid/view/timeline_widget.h"

namespace braid::view {

class CompareView : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(QWidget* parent = nullptr);
  void SetRuns(std::shared_ptr<const Timeline> a, const RunSummary& sa, std::shared_ptr<const Timeline> b,
               const RunSummary& sb);
  TimelineWidget* first() { return a_; }
  TimelineWidget* second() { return b_; }
  QTableWidget* metrics() { return table_; }

 private:
  QLabel* label_a_;
  QLabel* label_b_;
  TimelineWidget* a_;
  TimelineWidget* b_;
  QTableWidget* table_;
};

}  // namespace braid::view
