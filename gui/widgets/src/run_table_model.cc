#include "braid/view/run_table_model.h"

#include "braid/view/time_axis.h"

namespace braid::view {

void RunTableModel::SetRuns(std::vector<RunSummary> runs) {
  beginResetModel();
  runs_ = std::move(runs);
  endResetModel();
}

int RunTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(runs_.size()); }
int RunTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant RunTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[kColumnCount] = {"run",      "workload", "topology",     "backend", "config",    "events",
                                            "makespan", "overlap",  "exposed comm", "tail",    "efficiency"};
  return section >= 0 && section < kColumnCount ? QVariant(names[section]) : QVariant();
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(runs_.size()) || index.column() >= kColumnCount) return {};
  if (role != Qt::DisplayRole && role != kSortRole && role != Qt::TextAlignmentRole) return {};
  const RunSummary& r = runs_[size_t(index.row())];
  const bool text = role == Qt::DisplayRole;
  const int col = index.column();
  if (role == Qt::TextAlignmentRole) {
    return col == kId || col >= kEvents ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
  }
  auto time = [&](double ns) { return text ? QVariant(QString::fromStdString(FormatDuration(ns))) : QVariant(ns); };
  switch (col) {
    case kId:
      return QVariant(qlonglong(r.id));
    case kWorkload:
      return QString::fromStdString(r.workload);
    case kTopology:
      return QString::fromStdString(r.topology);
    case kBackend:
      return QString::fromStdString(r.backend + (r.source == "imported" ? " (imported)" : ""));
    case kConfig:
      return QString::fromStdString(r.config);
    case kEvents:
      return QVariant(qlonglong(r.event_count));
    case kMakespan:
      return time(r.makespan_ns);
    case kOverlap:
      return text ? QVariant(QString::number(100 * r.overlap_ratio, 'f', 1) + " %") : QVariant(r.overlap_ratio);
    case kExposed:
      return time(r.exposed_comm_ns);
    case kTail:
      return time(r.tail_ns);
    case kEfficiency:
      if (!r.efficiency) return text ? QVariant(QString("–")) : QVariant(-1.0);
      return text ? QVariant(QString::number(*r.efficiency, 'f', 3)) : QVariant(*r.efficiency);
  }
  return {};
}

}  // namespace braid::view
