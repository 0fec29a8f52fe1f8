#include "braid/view/trial_table_model.h"

#include "braid/view/time_axis.h"

namespace braid::view {

void TrialTableModel::SetTrials(std::vector<TrialRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int TrialTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int TrialTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant TrialTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[kColumnCount] = {
      "trial", "op", "config", "status", "median", "95 % interval", "speedup vs serial", "run"};
  return section >= 0 && section < kColumnCount ? QVariant(names[section]) : QVariant();
}

QVariant TrialTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rows_.size()) || index.column() >= kColumnCount) return {};
  if (role != Qt::DisplayRole && role != kSortRole) return {};
  const TrialRow& t = rows_[size_t(index.row())];
  const bool text = role == Qt::DisplayRole;
  auto opt_time = [&](std::optional<double> ns) -> QVariant {
    if (!ns) return text ? QVariant(QString("–")) : QVariant(1e300);
    return text ? QVariant(QString::fromStdString(FormatDuration(*ns))) : QVariant(*ns);
  };
  switch (index.column()) {
    case kId:
      return QVariant(qlonglong(t.id));
    case kOp:
      return QString::fromStdString(t.op);
    case kConfig:
      return QString::fromStdString(t.config);
    case kStatus:
      return QString::fromStdString(t.status);
    case kMedian:
      return opt_time(t.median_ns);
    case kInterval:
      if (!t.ci_low_ns) return text ? QVariant(QString("–")) : QVariant(1e300);
      return text ? QVariant(
                        QString::fromStdString(FormatDuration(*t.ci_low_ns) + " – " + FormatDuration(*t.ci_high_ns)))
                  : QVariant(*t.ci_high_ns - *t.ci_low_ns);
    case kSpeedup:
      if (!t.speedup_vs_serial) return text ? QVariant(QString("–")) : QVariant(-1.0);
      return text ? QVariant(QString::number(*t.speedup_vs_serial, 'f', 3) + "×") : QVariant(*t.speedup_vs_serial);
    case kRun:
      if (!t.run) return text ? QVariant(QString("–")) : QVariant(qlonglong(-1));
      return QVariant(qlonglong(*t.run));
  }
  return {};
}

}  // namespace braid::view
