// The runs of a store: a filter box over every text column and a sortable
// table. Double-click (or Enter) opens a run; "Compare" opens the two
// selected runs side by side.
#pragma once

#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QWidget>

#include "braid/view/run_table_model.h"

namespace braid::view {

class RunBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit RunBrowser(QWidget* parent = nullptr);
  void SetRuns(std::vector<RunSummary> runs) { model_->SetRuns(std::move(runs)); }
  RunTableModel* model() { return model_; }
  QSortFilterProxyModel* proxy() { return proxy_; }
  QLineEdit* filter() { return filter_; }
  QTableView* table() { return table_; }
  QPushButton* compare_button() { return compare_; }

 signals:
  void runActivated(qint64 run);
  void compareRequested(qint64 a, qint64 b);

 private:
  qint64 RunOfProxyRow(int row) const;

  RunTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QLineEdit* filter_;
  QTableView* table_;
  QPushButton* compare_;
};

}  // namespace braid::view
