// A tuning session's trials as a sortable table.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "braid/view/session_trials.h"

namespace braid::view {

class TrialTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  static constexpr int kSortRole = Qt::UserRole;
  enum Column { kId, kOp, kConfig, kStatus, kMedian, kInterval, kSpeedup, kRun, kColumnCount };

  explicit TrialTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void SetTrials(std::vector<TrialRow> rows);
  const std::vector<TrialRow>& trials() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<TrialRow> rows_;
};

}  // namespace braid::view
