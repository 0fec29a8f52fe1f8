#include "braid/view/details_panel.h"

#include <QHeaderView>
#include <cstdio>

#include "braid/view/time_axis.h"

namespace braid::view {

DetailsPanel::DetailsPanel(QWidget* parent) : QTableWidget(0, 2, parent) {
  setHorizontalHeaderLabels({"field", "value"});
  horizontalHeader()->setStretchLastSection(true);
  verticalHeader()->hide();
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setMinimumWidth(240);
}

void DetailsPanel::ShowLines(const std::vector<DetailLine>& lines) {
  setRowCount(int(lines.size()));
  for (int i = 0; i < int(lines.size()); ++i) {
    setItem(i, 0, new QTableWidgetItem(QString::fromStdString(lines[size_t(i)].first)));
    setItem(i, 1, new QTableWidgetItem(QString::fromStdString(lines[size_t(i)].second)));
  }
  resizeColumnToContents(0);
}

void DetailsPanel::ShowRange(const RangeStats& s) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f %%", 100 * s.overlap_ratio);
  ShowLines({{"selection", FormatDuration(double(s.duration_ns))},
             {"compute (mean/rank)", FormatDuration(s.compute_ns)},
             {"comm (mean/rank)", FormatDuration(s.comm_ns)},
             {"overlap", FormatDuration(s.overlap_ns)},
             {"exposed comm", FormatDuration(s.exposed_comm_ns)},
             {"overlap %", pct}});
}

QString DetailsPanel::Value(const QString& field) const {
  for (int i = 0; i < rowCount(); ++i) {
    if (item(i, 0) && item(i, 0)->text() == field) return item(i, 1)->text();
  }
  return {};
}

}  // namespace braid::view
