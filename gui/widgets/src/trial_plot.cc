#include "braid/view/trial_plot.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "braid/view/time_axis.h"

namespace braid::view {

namespace {

constexpr int kLeft = 70, kRight = 10, kTop = 10, kBottom = 30;

QColor ChunkColor(size_t level, size_t levels) {
  return QColor::fromHsv(int(220 - 200 * (levels > 1 ? double(level) / double(levels - 1) : 0)), 200, 200);
}

}  // namespace

TrialPlot::TrialPlot(QWidget* parent) : QWidget(parent) { setMinimumHeight(160); }

void TrialPlot::SetTrials(std::vector<TrialRow> rows) {
  rows_ = std::move(rows);
  targets_ = TrialTargets(rows_);
  SetTarget(targets_.front());
}

void TrialPlot::SetTarget(const std::string& op) {
  target_ = op;
  algorithms_.clear();
  chunk_levels_.clear();
  double lo = 1e300, hi = 0;
  for (const TrialRow& t : rows_) {
    if (!Shown(t)) continue;
    if (std::find(algorithms_.begin(), algorithms_.end(), t.algorithm) == algorithms_.end())
      algorithms_.push_back(t.algorithm);
    if (std::find(chunk_levels_.begin(), chunk_levels_.end(), t.chunks) == chunk_levels_.end())
      chunk_levels_.push_back(t.chunks);
    lo = std::min(lo, t.ci_low_ns.value_or(*t.median_ns));
    hi = std::max(hi, t.ci_high_ns.value_or(*t.median_ns));
  }
  std::sort(algorithms_.begin(), algorithms_.end());
  std::sort(chunk_levels_.begin(), chunk_levels_.end());
  if (hi < lo) lo = 0, hi = 1;
  scale_ = MakeTrialScale(lo, hi);
  selected_.reset();
  update();
}

void TrialPlot::SetSelected(std::optional<size_t> index) {
  selected_ = index;
  update();
}

std::optional<QPointF> TrialPlot::PointOf(size_t index) const {
  if (index >= rows_.size() || !Shown(rows_[index]) || algorithms_.empty()) return std::nullopt;
  const TrialRow& t = rows_[index];
  const double col_w = double(width() - kLeft - kRight) / double(algorithms_.size());
  const size_t col = size_t(std::find(algorithms_.begin(), algorithms_.end(), t.algorithm) - algorithms_.begin());
  const size_t level = size_t(std::find(chunk_levels_.begin(), chunk_levels_.end(), t.chunks) - chunk_levels_.begin());
  const double frac = (double(level) + 0.5) / double(chunk_levels_.size());
  const double x = kLeft + col_w * (double(col) + 0.15 + 0.7 * frac);
  const double y = kTop + scale_.FromTop(*t.median_ns) * double(height() - kTop - kBottom);
  return QPointF(x, y);
}

void TrialPlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), Qt::white);
  const int plot_h = height() - kTop - kBottom;
  p.setPen(QColor(0x80, 0x80, 0x80));
  p.drawRect(kLeft, kTop, width() - kLeft - kRight, plot_h);
  for (double v : scale_.Ticks()) {
    const int y = kTop + int(std::lround(scale_.FromTop(v) * plot_h));
    p.drawText(QRect(0, y - 8, kLeft - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
               QString::fromStdString(FormatDuration(v)));
    p.drawLine(kLeft - 3, y, kLeft, y);
  }
  if (scale_.log) p.drawText(QRect(kLeft + 4, height() - kBottom - 18, 200, 16), Qt::AlignLeft, "log scale");
  if (algorithms_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, "no measured trials");
    return;
  }
  const double col_w = double(width() - kLeft - kRight) / double(algorithms_.size());
  for (size_t c = 0; c < algorithms_.size(); ++c) {
    p.setPen(Qt::black);
    p.drawText(QRectF(kLeft + col_w * double(c), height() - kBottom + 4, col_w, 16), Qt::AlignCenter,
               QString::fromStdString(algorithms_[c].empty() ? "?" : algorithms_[c]));
  }
  for (size_t i = 0; i < rows_.size(); ++i) {
    const auto pt = PointOf(i);
    if (!pt) continue;
    const TrialRow& t = rows_[i];
    const size_t level =
        size_t(std::find(chunk_levels_.begin(), chunk_levels_.end(), t.chunks) - chunk_levels_.begin());
    const QColor color = ChunkColor(level, chunk_levels_.size());
    auto y_of = [&](double v) { return kTop + scale_.FromTop(v) * plot_h; };
    p.setPen(QPen(color, 1));
    if (t.ci_low_ns && t.ci_high_ns)
      p.drawLine(QPointF(pt->x(), y_of(*t.ci_low_ns)), QPointF(pt->x(), y_of(*t.ci_high_ns)));
    p.setBrush(color);
    p.drawEllipse(*pt, 3.5, 3.5);
    if (selected_ == i) {
      p.setBrush(Qt::NoBrush);
      p.setPen(QPen(Qt::black, 2));
      p.drawEllipse(*pt, 7, 7);
    }
  }
  // Legend: chunk counts.
  double x = kLeft + 6;
  for (size_t l = 0; l < chunk_levels_.size(); ++l) {
    p.setPen(Qt::NoPen);
    p.setBrush(ChunkColor(l, chunk_levels_.size()));
    p.drawEllipse(QPointF(x, kTop + 10), 4, 4);
    p.setPen(Qt::black);
    const QString label = QString("chunks=%1").arg(chunk_levels_[l]);
    p.drawText(QPointF(x + 7, kTop + 14), label);
    x += 20 + p.fontMetrics().horizontalAdvance(label);
  }
}

void TrialPlot::mousePressEvent(QMouseEvent* e) {
  std::optional<size_t> best;
  double best_d = 10 * 10;  // within 10 px
  for (size_t i = 0; i < rows_.size(); ++i) {
    const auto pt = PointOf(i);
    if (!pt) continue;
    const QPointF d = *pt - e->position();
    const double dd = d.x() * d.x() + d.y() * d.y();
    if (dd < best_d) best_d = dd, best = i;
  }
  if (best) {
    SetSelected(best);
    emit trialClicked(int(*best));
  }
}

}  // namespace braid::view
