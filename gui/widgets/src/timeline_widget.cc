#include "braid/view/timeline_widget.h"

#include <algorithm>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <cmath>

#include "timeline_painter.h"

namespace braid::view {

namespace {

constexpr double kWheelZoom = 0.8;  // per notch in
constexpr double kKeyPan = 0.1;     // of the span per key press
constexpr int kClickSlop = 3;       // px a press may move and still be a click

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(false);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void TimelineWidget::SetTimeline(std::shared_ptr<const Timeline> t, QString message) {
  std::vector<RankBand> bands = t ? ComputeOverlapBands(*t) : std::vector<RankBand>{};
  SetTimeline(std::move(t), std::move(bands), std::move(message));
}

void TimelineWidget::SetTimeline(std::shared_ptr<const Timeline> t, std::vector<RankBand> bands, QString message) {
  timeline_ = std::move(t);
  bands_ = std::move(bands);
  notes_.clear();
  // Each distinct name classified once: an imported trace has thousands of
  // kernel names, not one per event.
  comm_pattern_.clear();
  comm_patterns_.clear();
  if (timeline_) {
    comm_pattern_.assign(timeline_->names.size(), -1);
    for (size_t i = 0; i < timeline_->names.size(); ++i) {
      const std::string& name = timeline_->names[int32_t(i)];
      const std::optional<CommKind> k = ClassifyComm(name, !std::string_view(name).starts_with("Memcpy"));
      if (!k) continue;
      comm_pattern_[i] = int8_t(k->pattern);
      if (std::find(comm_patterns_.begin(), comm_patterns_.end(), k->pattern) == comm_patterns_.end()) {
        comm_patterns_.push_back(k->pattern);
      }
    }
    std::sort(comm_patterns_.begin(), comm_patterns_.end());
  }
  message_ = std::move(message);
  selected_.reset();
  matches_.clear();
  range_.reset();
  collapsed_.clear();
  Relayout();
  FitAll();
  update();
}

void TimelineWidget::SetEventNotes(std::map<std::pair<int, int64_t>, std::string> notes) {
  notes_ = std::move(notes);
  update();
}

void TimelineWidget::SetView(ViewRange r) {
  if (!(r.span() >= ViewRange::kMinSpan)) r = r.Zoomed(ViewRange::kMinSpan / std::max(1e-9, r.span()), 0.5);
  if (r.begin == view_.begin && r.end == view_.end) return;
  view_ = r;
  update();
  emit viewChanged(view_);
}

void TimelineWidget::FitAll() { SetView(ViewRange::Fit(0, timeline_ ? double(timeline_->duration_ns()) : 1.0)); }

void TimelineWidget::SelectEvent(std::optional<EventRef> e) {
  selected_ = e;
  matches_ = e && timeline_ ? MatchingTransfers(*timeline_, *e) : std::vector<EventRef>{};
  update();
  emit eventSelected(selected_);
}

void TimelineWidget::SelectRange(double t0, double t1) {
  if (t1 < t0) std::swap(t0, t1);
  range_ = ViewRange{t0, t1};
  update();
  if (timeline_) {
    const int64_t o = timeline_->origin_ns;
    emit rangeSelected(StatsInRange(bands_, o + int64_t(std::llround(t0)), o + int64_t(std::llround(t1))));
  }
}

void TimelineWidget::SetCollapsed(int rank, bool collapsed) {
  if (collapsed) {
    collapsed_.insert(rank);
  } else {
    collapsed_.erase(rank);
  }
  Relayout();
  update();
}

double TimelineWidget::XOfTime(double rel_ns) const {
  return kHeaderWidth + (rel_ns - view_.begin) / view_.span() * plot_width();
}

double TimelineWidget::TimeAtX(double x) const {
  return view_.begin + (x - kHeaderWidth) / plot_width() * view_.span();
}

void TimelineWidget::Relayout() {
  layout_.clear();
  int y = kAxisHeight;
  if (timeline_) {
    for (int rank : timeline_->ranks) {
      RankLayout l;
      l.rank = rank;
      l.collapsed = collapsed_.count(rank) > 0;
      std::tie(l.first_row, l.last_row) = timeline_->RowsOfRank(rank);
      l.header_y = y;
      y += kRankHeaderHeight;
      l.band_y = y;
      y += kBandHeight + 2;
      if (!l.collapsed) {
        for (size_t r = l.first_row; r < l.last_row; ++r) {
          l.row_y.push_back(y);
          y += kRowHeight;
        }
      }
      y += 4;
      layout_.push_back(std::move(l));
    }
  }
  content_height_ = y;
  updateGeometry();
}

QSize TimelineWidget::sizeHint() const { return {900, std::max(200, content_height_)}; }
QSize TimelineWidget::minimumSizeHint() const { return {kHeaderWidth + 100, std::max(120, content_height_)}; }

std::optional<EventRef> TimelineWidget::EventAt(QPoint p) const {
  if (!timeline_ || p.x() < kHeaderWidth) return std::nullopt;
  for (const RankLayout& l : layout_) {
    for (size_t i = 0; i < l.row_y.size(); ++i) {
      if (p.y() < l.row_y[i] + 2 || p.y() >= l.row_y[i] + kRowHeight - 2) continue;
      const size_t row = l.first_row + i;
      // Events within 2 px of the cursor; the nearest wins (narrow ones too).
      const double ns_per_px = view_.span() / plot_width();
      const int64_t o = timeline_->origin_ns;
      const int64_t t = o + int64_t(std::llround(TimeAtX(p.x())));
      const int64_t slop = int64_t(std::ceil(2 * ns_per_px));
      const TimelineRow& tr = timeline_->rows[row];
      const auto [a, b] = VisibleEvents(tr, t - slop, t + slop + 1);
      std::optional<EventRef> best;
      int64_t best_d = INT64_MAX;
      for (size_t k = a; k < b; ++k) {
        const DrawnEvent& e = tr.events[k];
        const int64_t d = t < e.start_ns ? e.start_ns - t : t >= e.end_ns ? t - e.end_ns : 0;
        if (d < best_d) {
          best_d = d;
          best = EventRef{row, k};
        }
      }
      return best;
    }
  }
  return std::nullopt;
}

std::optional<int> TimelineWidget::RankHeaderAt(QPoint p) const {
  for (const RankLayout& l : layout_) {
    if (p.y() >= l.header_y && p.y() < l.header_y + kRankHeaderHeight) return l.rank;
  }
  return std::nullopt;
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  PaintTimeline(p, *this);
}

void TimelineWidget::wheelEvent(QWheelEvent* e) {
  const double notches = e->angleDelta().y() / 120.0;
  if (notches == 0) return;
  const double anchor = (e->position().x() - kHeaderWidth) / plot_width();
  SetView(view_.Zoomed(std::pow(kWheelZoom, notches), anchor));
  e->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
  press_pos_ = e->pos();
  press_view_ = view_;
  moved_ = false;
  const bool range =
      e->button() == Qt::RightButton || (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier));
  drag_ = range ? Drag::kRange : e->button() == Qt::LeftButton ? Drag::kPan : Drag::kNone;
  e->accept();
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
  if (drag_ == Drag::kNone) return;
  if ((e->pos() - press_pos_).manhattanLength() > kClickSlop) moved_ = true;
  if (!moved_) return;
  if (drag_ == Drag::kPan) {
    const double dx = e->pos().x() - press_pos_.x();
    SetView(press_view_.Panned(-dx / plot_width() * press_view_.span()));
  } else {
    SelectRange(TimeAtX(press_pos_.x()), TimeAtX(e->pos().x()));
  }
  e->accept();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
  const Drag d = drag_;
  drag_ = Drag::kNone;
  if (d == Drag::kNone) return;
  if (moved_) {
    if (d == Drag::kRange) SelectRange(TimeAtX(press_pos_.x()), TimeAtX(e->pos().x()));
    return;
  }
  if (auto rank = RankHeaderAt(e->pos())) {
    SetCollapsed(*rank, collapsed_.count(*rank) == 0);
    return;
  }
  SelectEvent(EventAt(e->pos()));
}

void TimelineWidget::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_W:
      SetView(view_.Zoomed(kWheelZoom, 0.5));
      break;
    case Qt::Key_S:
      SetView(view_.Zoomed(1 / kWheelZoom, 0.5));
      break;
    case Qt::Key_A:
      SetView(view_.Panned(-kKeyPan * view_.span()));
      break;
    case Qt::Key_D:
      SetView(view_.Panned(kKeyPan * view_.span()));
      break;
    case Qt::Key_F:
      if (selected_ && timeline_) {
        const DrawnEvent& ev = timeline_->rows[selected_->row].events[selected_->index];
        SetView(
            ViewRange::Fit(double(ev.start_ns - timeline_->origin_ns), double(ev.end_ns - timeline_->origin_ns), 0.1));
      } else if (range_) {
        SetView(ViewRange::Fit(range_->begin, range_->end));
      } else {
        FitAll();
      }
      break;
    case Qt::Key_Escape:
      range_.reset();
      SelectEvent(std::nullopt);
      break;
    default:
      QWidget::keyPressEvent(e);
      return;
  }
  e->accept();
}

}  // namespace braid::view
