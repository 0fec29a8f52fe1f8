#include "braid/view/session_view.h"

#include <QHeaderView>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

namespace braid::view {

SessionView::SessionView(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel),
      model_(new TrialTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView),
      plot_(new TrialPlot),
      targets_(new QComboBox) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(TrialTableModel::kSortRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(TrialTableModel::kId, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(table_);
  auto* below = new QWidget;
  auto* below_layout = new QVBoxLayout(below);
  below_layout->setContentsMargins(0, 0, 0, 0);
  below_layout->addWidget(targets_);
  below_layout->addWidget(plot_, 1);
  split->addWidget(below);
  targets_->hide();
  connect(targets_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0 && size_t(i) < plot_->targets().size()) plot_->SetTarget(plot_->targets()[size_t(i)]);
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(title_);
  layout->addWidget(split, 1);
  connect(table_, &QTableView::activated, this,
          [this](const QModelIndex& i) { Activate(size_t(proxy_->mapToSource(i).row())); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (i.isValid()) plot_->SetSelected(size_t(proxy_->mapToSource(i).row()));
  });
  connect(plot_, &TrialPlot::trialClicked, this, [this](int i) { Activate(size_t(i)); });
}

void SessionView::SetSession(const StoredSession& s, std::vector<TrialRow> rows) {
  title_->setText(QString("session %1 · %2 · %3 · %4 · %5 strategy · %6 trials")
                      .arg(s.id)
                      .arg(QString::fromStdString(s.info.workload_key), QString::fromStdString(s.info.topology),
                           QString::fromStdString(s.info.backend), QString::fromStdString(s.info.strategy))
                      .arg(rows.size()));
  plot_->SetTrials(rows);
  model_->SetTrials(std::move(rows));
  table_->resizeColumnsToContents();
  const QSignalBlocker quiet(targets_);
  targets_->clear();
  for (const std::string& op : plot_->targets()) targets_->addItem("target: " + QString::fromStdString(op));
  targets_->setVisible(plot_->targets().size() > 1);
}

void SessionView::Activate(size_t trial_index) {
  if (trial_index >= model_->trials().size()) return;
  // A trial of another target: the plot shows its target first.
  const auto& ops = plot_->targets();
  const auto at = std::find(ops.begin(), ops.end(), model_->trials()[trial_index].op);
  if (at != ops.end() && targets_->currentIndex() != int(at - ops.begin()))
    targets_->setCurrentIndex(int(at - ops.begin()));
  plot_->SetSelected(trial_index);
  const auto run = model_->trials()[trial_index].run;
  if (run) emit trialRunRequested(*run);
}

}  // namespace braid::view
