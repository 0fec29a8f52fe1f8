#include "braid/view/gemm_panel.h"

#include <QHeaderView>

#include "braid/view/time_axis.h"

namespace braid::view {

namespace {
QString Q(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
}  // namespace

GemmPanel::GemmPanel(QWidget* parent) : QTableWidget(0, kColumnCount, parent) {
  setHorizontalHeaderLabels({"rank", "#", "key", "label", "method", "verdict", "gemm", "comm", "exposed", "kernel"});
  verticalHeader()->hide();
  horizontalHeader()->setStretchLastSection(true);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  connect(this, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (row >= 0 && size_t(row) < rows_.size())
      emit gemmClicked(rows_[size_t(row)].start_ns, rows_[size_t(row)].end_ns);
  });
}

void GemmPanel::ShowRows(std::vector<GemmOverlapRow> rows) {
  rows_ = std::move(rows);
  setRowCount(int(rows_.size()));
  for (int i = 0; i < int(rows_.size()); ++i) {
    const GemmOverlapRow& r = rows_[size_t(i)];
    const bool comm = r.comm_ns > 0;
    const QString cells[kColumnCount] = {QString::number(r.rank),
                                         QString::number(r.index),
                                         r.key.empty() ? QString("-") : Q(r.key),
                                         r.label.empty() ? QString("-") : Q(r.label),
                                         Q(OverlapMethodName(r.method)),
                                         Q(GemmVerdictName(r.verdict)),
                                         Q(FormatDuration(double(r.gemm_ns))),
                                         comm ? Q(FormatDuration(double(r.comm_ns))) : QString("-"),
                                         comm ? Q(FormatDuration(double(r.exposed_ns))) : QString("-"),
                                         Q(r.kernel)};
    for (int c = 0; c < kColumnCount; ++c) setItem(i, c, new QTableWidgetItem(cells[c]));
  }
  resizeColumnsToContents();
}

}  // namespace braid::view
