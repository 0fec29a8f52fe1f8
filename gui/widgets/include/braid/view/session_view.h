// A tuning session: its trials as a sortable table (columns sized to their
// contents) and a plot of trial time by algorithm and knob, one target at a
// time (a chooser above it where the session tuned several). Activating a
// trial (double-click, Enter, or a click on its dot) asks for its run's
// timeline.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QWidget>

#include "braid/store.h"
#include "braid/view/trial_plot.h"
#include "braid/view/trial_table_model.h"

namespace braid::view {

class SessionView : public QWidget {
  Q_OBJECT

 public:
  explicit SessionView(QWidget* parent = nullptr);
  void SetSession(const StoredSession& s, std::vector<TrialRow> rows);
  TrialTableModel* model() { return model_; }
  QSortFilterProxyModel* proxy() { return proxy_; }
  QTableView* table() { return table_; }
  TrialPlot* plot() { return plot_; }
  QComboBox* targets() { return targets_; }

 signals:
  void trialRunRequested(qint64 run);

 private:
  void Activate(size_t trial_index);

  QLabel* title_;
  TrialTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  TrialPlot* plot_;
  QComboBox* targets_;
};

}  // namespace braid::view
