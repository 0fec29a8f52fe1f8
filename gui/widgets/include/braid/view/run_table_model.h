// The run browser's table: one row per stored run with `braid report`'s
// figures. Display text in Qt::DisplayRole, sortable values in kSortRole.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "braid/view/run_summary.h"

namespace braid::view {

class RunTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  static constexpr int kSortRole = Qt::UserRole;
  enum Column {
    kId,
    kWorkload,
    kTopology,
    kBackend,
    kConfig,
    kEvents,
    kMakespan,
    kOverlap,
    kExposed,
    kTail,
    kEfficiency,
    kColumnCount
  };

  explicit RunTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void SetRuns(std::vector<RunSummary> runs);
  const std::vector<RunSummary>& runs() const { return runs_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<RunSummary> runs_;
};

}  // namespace braid::view
