#include "timeline_painter.h"

#include <QFontMetrics>
#include <QImage>
#include <cmath>
#include <utility>

#include "braid/view/event_details.h"
#include "braid/view/kind_colors.h"
#include "braid/view/level_of_detail.h"

namespace braid::view {

namespace {

constexpr int kMinTextPx = 40;     // narrower events and folds are drawn without text
constexpr int kMinBoundaryPx = 4;  // closer iteration boundaries are drawn as one

struct Frame {
  const TimelineWidget& w;
  const Timeline& t;
  int64_t t0, t1;  // visible window, stored times
  double ns_per_px;

  double X(int64_t stored) const { return w.XOfTime(double(stored - t.origin_ns)); }
  // [x0, x1) clipped to the plot, at least one pixel wide.
  QRectF Span(int64_t b, int64_t e, int y, int h) const {
    const double x0 = std::max(double(TimelineWidget::kHeaderWidth) - 1, X(b));
    const double x1 = std::min(double(w.width()) + 1, X(e));
    return {x0, double(y), std::max(1.0, x1 - x0), double(h)};
  }
};

void PaintAxis(QPainter& p, const TimelineWidget& w) {
  p.fillRect(0, 0, w.width(), TimelineWidget::kAxisHeight, QColor(0xF4, 0xF4, 0xF4));
  p.setPen(QColor(0x60, 0x60, 0x60));
  for (const AxisTick& tick : AxisTicks(w.view(), w.plot_width())) {
    const double x = w.XOfTime(tick.t);
    p.drawLine(QPointF(x, TimelineWidget::kAxisHeight - 6), QPointF(x, TimelineWidget::kAxisHeight));
    p.drawText(QPointF(x + 3, TimelineWidget::kAxisHeight - 8), QString::fromStdString(tick.label));
  }
  p.drawLine(0, TimelineWidget::kAxisHeight - 1, w.width(), TimelineWidget::kAxisHeight - 1);
}

void PaintIterationBoundaries(QPainter& p, const Frame& f, int bottom) {
  p.setPen(QPen(QColor(0x90, 0x90, 0x90), 1, Qt::DashLine));
  // Hundreds of iterations seen whole would be a wall of dashed lines under
  // overlapping labels, and a text layout each per repaint: a line is drawn
  // only kMinBoundaryPx after the last one, a label kMinTextPx after the last.
  double line_x = -1e9, label_x = -1e9;
  for (const IterationSpan& it : f.t.iterations) {
    if (it.begin_ns < f.t0 || it.begin_ns > f.t1) continue;
    const double x = f.X(it.begin_ns);
    if (x - line_x < kMinBoundaryPx) continue;
    line_x = x;
    p.drawLine(QPointF(x, TimelineWidget::kAxisHeight), QPointF(x, bottom));
    if (x - label_x < kMinTextPx) continue;
    label_x = x;
    p.drawText(QPointF(x + 3, TimelineWidget::kAxisHeight + 11), QString("iter %1").arg(it.iteration));
  }
}

void PaintIntervals(QPainter& p, const Frame& f, const std::vector<Interval>& set, int y, int h, const QColor& c) {
  const auto [a, b] = IntervalsWithin(set, f.t0, f.t1);
  for (size_t i = a; i < b; ++i) p.fillRect(f.Span(set[i].begin, set[i].end, y, h), c);
}

// Each pixel column's overlap (on top) and exposed communication (below it)
// as tall as their shares of the column's time (BandPixelHeights), written
// into one image a band: zoomed out, the colours keep the proportions of the
// time, not of the columns touched (a rectangle a column was slower than
// the rows).
void PaintBandColumns(QPainter& p, const Frame& f, const RankBand& band, int y, int h) {
  const int columns = int(f.w.plot_width());
  const double t0 = double(f.t.origin_ns) + f.w.TimeAtX(TimelineWidget::kHeaderWidth);
  const std::vector<BandPixels> px = BandPixelHeights(BandColumns(band, t0, f.ns_per_px, columns), h);
  QImage img(columns, h, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::transparent);
  const QRgb overlap = kOverlapColor.rgba(), exposed = kExposedColor.rgba();
  for (int row = 0; row < h; ++row) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(row));
    for (int c = 0; c < columns; ++c) {
      const BandPixels& b = px[size_t(c)];
      if (row < b.overlap) {
        line[c] = overlap;
      } else if (row < b.overlap + b.exposed) {
        line[c] = exposed;
      }
    }
  }
  p.drawImage(TimelineWidget::kHeaderWidth, y, img);
}

void PaintBand(QPainter& p, const Frame& f, const RankBand& band, int y) {
  const int h = TimelineWidget::kBandHeight;
  p.fillRect(QRectF(TimelineWidget::kHeaderWidth, y, f.w.plot_width(), h), kBandBackground);
  PaintBandColumns(p, f, band, y, h - 5);
  PaintIntervals(p, f, band.tails, y + h - 4, 4, kTailColor);
  // The tail's start, across the band, so that it reads at any zoom (once
  // per 2 px: hundreds of iterations seen whole are not hundreds of lines).
  p.setPen(QPen(kTailColor, 2));
  const auto [a, b] = IntervalsWithin(band.tails, f.t0, f.t1);
  double last_x = -1e9;
  for (size_t i = a; i < b; ++i) {
    const double x = f.X(band.tails[i].begin);
    if (x - last_x < 2) continue;
    last_x = x;
    p.drawLine(QPointF(x, y), QPointF(x, y + h));
  }
}

void PaintRow(QPainter& p, const Frame& f, const TimelineRow& row, int y, const QFontMetrics& fm) {
  const int h = TimelineWidget::kRowHeight - 4;
  p.fillRect(QRectF(TimelineWidget::kHeaderWidth, y, f.w.plot_width(), TimelineWidget::kRowHeight - 1), kRowBackground);
  for (const DrawBlock& b : FoldForDrawing(row, f.t0, f.t1, f.ns_per_px)) {
    const QRectF r = f.Span(b.start_ns, b.end_ns, y + 2, h);
    const bool fold = b.count > 1;
    QColor color = fold ? FoldColor(b.kind) : KindColor(b.kind);
    if (!fold && b.kind == EventKind::kComm) {
      const int pattern = f.w.CommPatternOfName(row.events[b.first].name);
      if (pattern >= 0) color = CommPatternColor(CommPattern(pattern));
    }
    p.fillRect(r, color);
    if (r.width() < kMinTextPx) continue;
    // A fold of one op's steps says which op ("fc2.dgrad ×12").
    QString text;
    if (fold) {
      const std::string first = OpPartOfName(f.t.NameOf(row.events[b.first]));
      const std::string last = OpPartOfName(f.t.NameOf(row.events[b.first + b.count - 1]));
      text = (!first.empty() && first == last ? QString::fromStdString(first) + " " : QString()) +
             QString("×%1").arg(b.count);
    } else {
      const DrawnEvent& e = row.events[b.first];
      const std::string* note = f.w.NoteOf(row.rank, e.start_ns);
      text =
          (note != nullptr ? QString::fromStdString(*note) + "  " : QString()) + QString::fromStdString(f.t.NameOf(e));
    }
    p.setPen(Qt::white);
    p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(text, Qt::ElideRight, int(r.width()) - 5));
  }
}

void PaintSelection(QPainter& p, const TimelineWidget& w, const Frame& f) {
  const auto sel = w.selected();
  if (!sel) return;
  auto rect_of = [&](EventRef e) -> std::optional<QRectF> {
    for (const RankLayout& l : w.layout()) {
      if (e.row < l.first_row || e.row >= l.last_row || l.row_y.empty()) continue;
      const DrawnEvent& ev = f.t.rows[e.row].events[e.index];
      return f.Span(ev.start_ns, ev.end_ns, l.row_y[e.row - l.first_row] + 1, TimelineWidget::kRowHeight - 2);
    }
    return std::nullopt;
  };
  const auto from = rect_of(*sel);
  if (from) {
    p.setPen(QPen(Qt::black, 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(*from);
  }
  // Send -> recv arrows to the selected event's partners.
  p.setPen(QPen(Qt::black, 1.5));
  for (const EventRef& m : w.transfer_partners()) {
    const auto to = rect_of(m);
    if (!from || !to) continue;
    const QPointF a(from->center().x(), from->center().y()), b(to->center().x(), to->center().y());
    p.drawLine(a, b);
    const double ang = std::atan2(b.y() - a.y(), b.x() - a.x());
    for (double d : {2.6, -2.6}) p.drawLine(b, b - QPointF(8 * std::cos(ang + d * 0.2), 8 * std::sin(ang + d * 0.2)));
    p.drawEllipse(b, 3, 3);
  }
}

void PaintRange(QPainter& p, const TimelineWidget& w, int bottom) {
  const auto r = w.selected_range();
  if (!r) return;
  const double x0 = w.XOfTime(r->begin), x1 = w.XOfTime(r->end);
  p.fillRect(QRectF(x0, TimelineWidget::kAxisHeight, std::max(1.0, x1 - x0), bottom - TimelineWidget::kAxisHeight),
             QColor(0x20, 0x60, 0xC0, 40));
  p.setPen(QColor(0x20, 0x60, 0xC0));
  p.drawLine(QPointF(x0, TimelineWidget::kAxisHeight), QPointF(x0, bottom));
  p.drawLine(QPointF(x1, TimelineWidget::kAxisHeight), QPointF(x1, bottom));
  p.drawText(QPointF(x0 + 3, TimelineWidget::kAxisHeight + 24), QString::fromStdString(FormatDuration(r->span())));
}

// What the band's colours mean, in the axis row above the row names.
void PaintLegend(QPainter& p) {
  int x = 4;
  const int y = 6;
  for (const auto& [color, label] :
       {std::pair{kOverlapColor, "overlap"}, std::pair{kExposedColor, "exposed"}, std::pair{kTailColor, "tail"}}) {
    p.fillRect(x, y + 2, 8, 8, color);
    p.setPen(Qt::black);
    p.drawText(QPointF(x + 10, y + 10), label);
    x += 12 + p.fontMetrics().horizontalAdvance(label) + 4;
  }
}

// The comm events' colours by pattern, where the run has named ones (an
// imported trace), at the axis row's right end.
void PaintCommLegend(QPainter& p, const TimelineWidget& w) {
  const std::vector<CommPattern>& patterns = w.comm_patterns();
  if (patterns.empty()) return;
  auto label_of = [](CommPattern c) {
    const std::string_view name = CommPatternName(c);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
  };
  const QFontMetrics fm = p.fontMetrics();
  int width = fm.horizontalAdvance("comm:") + 8;
  for (CommPattern c : patterns) width += 12 + fm.horizontalAdvance(label_of(c)) + 4;
  int x = w.width() - width - 4;
  const int y = 2;
  p.fillRect(x - 4, y, width + 6, 14, QColor(0xF4, 0xF4, 0xF4));
  p.setPen(Qt::black);
  p.drawText(QPointF(x, y + 11), "comm:");
  x += fm.horizontalAdvance("comm:") + 8;
  for (CommPattern c : patterns) {
    const QString label = label_of(c);
    p.fillRect(x, y + 3, 8, 8, CommPatternColor(c));
    p.drawText(QPointF(x + 10, y + 11), label);
    x += 12 + fm.horizontalAdvance(label) + 4;
  }
}

void PaintHeaders(QPainter& p, const TimelineWidget& w, const Timeline& t) {
  p.fillRect(0, 0, TimelineWidget::kHeaderWidth, TimelineWidget::kAxisHeight - 1, QColor(0xF4, 0xF4, 0xF4));
  QFont small = p.font();
  const QFont normal = small;
  small.setPointSizeF(normal.pointSizeF() * 0.8);
  p.setFont(small);
  PaintLegend(p);
  PaintCommLegend(p, w);
  p.setFont(normal);
  p.fillRect(0, TimelineWidget::kAxisHeight, TimelineWidget::kHeaderWidth, w.height(), QColor(0xF0, 0xF0, 0xF0));
  p.setPen(Qt::black);
  for (const RankLayout& l : w.layout()) {
    QFont bold = p.font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRect(4, l.header_y, w.width(), TimelineWidget::kRankHeaderHeight), Qt::AlignVCenter,
               QString("%1 rank %2").arg(l.collapsed ? "▸" : "▾").arg(l.rank));
    bold.setBold(false);
    p.setFont(bold);
    p.drawText(QRect(14, l.band_y, TimelineWidget::kHeaderWidth - 16, TimelineWidget::kBandHeight), Qt::AlignVCenter,
               "overlap");
    for (size_t i = 0; i < l.row_y.size(); ++i) {
      const TimelineRow& row = t.rows[l.first_row + i];
      p.drawText(QRect(14, l.row_y[i], TimelineWidget::kHeaderWidth - 16, TimelineWidget::kRowHeight), Qt::AlignVCenter,
                 p.fontMetrics().elidedText(QString::fromStdString(row.name), Qt::ElideRight,
                                            TimelineWidget::kHeaderWidth - 18));
    }
  }
}

}  // namespace

void PaintTimeline(QPainter& p, const TimelineWidget& w) {
  p.fillRect(w.rect(), Qt::white);
  PaintAxis(p, w);
  const Timeline* t = w.timeline();
  if (!t || t->empty()) {
    p.setPen(Qt::black);
    p.drawText(w.rect().adjusted(0, TimelineWidget::kAxisHeight, 0, 0), Qt::AlignCenter,
               w.message().isEmpty() ? QString("no run shown") : w.message());
    return;
  }
  const ViewRange& v = w.view();
  Frame f{w, *t, t->origin_ns + int64_t(std::floor(v.begin)), t->origin_ns + int64_t(std::ceil(v.end)) + 1,
          v.span() / w.plot_width()};
  const int bottom = w.layout().empty() ? w.height() : std::min(w.height(), int(w.sizeHint().height()));
  const QFontMetrics fm = p.fontMetrics();
  p.setClipRect(TimelineWidget::kHeaderWidth, TimelineWidget::kAxisHeight, int(w.plot_width()), w.height());
  const auto& bands = w.bands();
  for (size_t i = 0; i < w.layout().size(); ++i) {
    const RankLayout& l = w.layout()[i];
    if (l.header_y > w.height()) break;
    PaintBand(p, f, bands[i], l.band_y);
    for (size_t r = 0; r < l.row_y.size(); ++r) PaintRow(p, f, t->rows[l.first_row + r], l.row_y[r], fm);
  }
  PaintIterationBoundaries(p, f, bottom);
  PaintSelection(p, w, f);
  PaintRange(p, w, bottom);
  p.setClipping(false);
  PaintHeaders(p, w, *t);
}

}  // namespace braid::view
