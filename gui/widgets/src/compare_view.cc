#include "braid/view/compare_view.h"

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "braid/view/time_axis.h"
#include "vertical_scroll.h"

namespace braid::view {

namespace {

QString Title(const RunSummary& s) {
  return QString("run %1 · %2 · %3 · %4")
      .arg(s.id)
      .arg(QString::fromStdString(s.config), QString::fromStdString(s.workload),
           QString::fromStdString(s.backend + " " + s.topology));
}

QString Value(const MetricComparison& c, std::optional<double> v) {
  if (!v) return "–";
  return c.is_time ? QString::fromStdString(FormatDuration(*v)) : QString::number(*v, 'f', 3);
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      label_a_(new QLabel),
      label_b_(new QLabel),
      a_(new TimelineWidget),
      b_(new TimelineWidget),
      table_(new QTableWidget(0, 5)) {
  for (QLabel* l : {label_a_, label_b_}) l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  table_->setHorizontalHeaderLabels({"metric (p50, worst rank)", "A", "B", "B − A", "B / A"});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* top = new QWidget;
  auto* tl = new QVBoxLayout(top);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(label_a_);
  tl->addWidget(VerticalScroll(a_), 1);
  tl->addWidget(label_b_);
  tl->addWidget(VerticalScroll(b_), 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(table_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  // One axis: each follows the other's window (SetView ignores no-op changes).
  connect(a_, &TimelineWidget::viewChanged, b_, &TimelineWidget::SetView);
  connect(b_, &TimelineWidget::viewChanged, a_, &TimelineWidget::SetView);
}

void CompareView::SetRuns(std::shared_ptr<const Timeline> a, const RunSummary& sa, std::shared_ptr<const Timeline> b,
                          const RunSummary& sb) {
  const double longest = double(std::max(a ? a->duration_ns() : 0, b ? b->duration_ns() : 0));
  a_->SetTimeline(std::move(a), "run A has no events");
  b_->SetTimeline(std::move(b), "run B has no events");
  a_->SetView(ViewRange::Fit(0, std::max(1.0, longest)));
  label_a_->setText("A: " + Title(sa));
  label_b_->setText("B: " + Title(sb));
  const std::vector<MetricComparison> rows = CompareRuns(sa, sb);
  table_->setRowCount(int(rows.size()));
  for (int i = 0; i < int(rows.size()); ++i) {
    const MetricComparison& c = rows[size_t(i)];
    table_->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(c.name)));
    table_->setItem(i, 1, new QTableWidgetItem(Value(c, c.a)));
    table_->setItem(i, 2, new QTableWidgetItem(Value(c, c.b)));
    const bool both = c.a && c.b;
    QString diff = "–";
    if (both) diff = (c.diff > 0 ? "+" : c.diff < 0 ? "−" : "") + Value(c, std::abs(c.diff));
    table_->setItem(i, 3, new QTableWidgetItem(diff));
    table_->setItem(i, 4, new QTableWidgetItem(both && c.ratio != 0 ? QString::number(c.ratio, 'f', 3) : "–"));
  }
}

}  // namespace braid::view
