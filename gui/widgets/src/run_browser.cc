#include "braid/view/run_browser.h"

#include <QHeaderView>
#include <QVBoxLayout>

namespace braid::view {

RunBrowser::RunBrowser(QWidget* parent)
    : QWidget(parent),
      model_(new RunTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      filter_(new QLineEdit(this)),
      table_(new QTableView(this)),
      compare_(new QPushButton("Compare selected two", this)) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(RunTableModel::kSortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  filter_->setPlaceholderText("filter: workload, topology, backend, config…");
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RunTableModel::kId, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(filter_);
  layout->addWidget(table_);
  layout->addWidget(compare_);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(table_, &QTableView::activated, this,
          [this](const QModelIndex& i) { emit runActivated(RunOfProxyRow(i.row())); });
  connect(compare_, &QPushButton::clicked, this, [this] {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.size() == 2) emit compareRequested(RunOfProxyRow(rows[0].row()), RunOfProxyRow(rows[1].row()));
  });
}

qint64 RunBrowser::RunOfProxyRow(int row) const {
  return proxy_->data(proxy_->index(row, RunTableModel::kId), RunTableModel::kSortRole).toLongLong();
}

}  // namespace braid::view
