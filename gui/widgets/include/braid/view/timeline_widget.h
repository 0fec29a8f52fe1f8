// The timeline: per rank a header (click to collapse), the overlap band
// (overlap, exposed comm, tail) and one row per lane; iteration boundaries,
// a time axis, and send→recv arrows for the selected event.
//
// Input, as in Perfetto and Tracy: wheel zooms at the cursor; left drag pans;
// shift + left drag (or right drag) selects a time range and reports its
// duration, compute, comm and overlap; a click selects the event under the
// cursor; W/S zoom in/out, A/D pan, F fits the selection (event or range, or
// the whole run), Esc clears it.
#pragma once

#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "braid/comm_kernels.h"
#include "braid/view/overlap_band.h"
#include "braid/view/time_axis.h"
#include "braid/view/timeline.h"

namespace braid::view {

// Where a rank and its rows are drawn (y in widget pixels).
struct RankLayout {
  int rank = 0;
  int header_y = 0;
  int band_y = 0;
  bool collapsed = false;
  size_t first_row = 0, last_row = 0;  // rows of the rank in the timeline
  std::vector<int> row_y;              // per row of the rank; empty when collapsed
};

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kHeaderWidth = 150;
  static constexpr int kAxisHeight = 24;
  static constexpr int kRankHeaderHeight = 18;
  static constexpr int kBandHeight = 14;
  static constexpr int kRowHeight = 22;

  explicit TimelineWidget(QWidget* parent = nullptr);

  // Shows `t` (null clears) fitted to its whole length; `message` is drawn
  // instead when the timeline is empty.
  void SetTimeline(std::shared_ptr<const Timeline> t, QString message = {});
  // The same with `t`'s overlap bands (ComputeOverlapBands) computed by the
  // caller, e.g. on the thread that loaded it: nothing scans the run here.
  void SetTimeline(std::shared_ptr<const Timeline> t, std::vector<RankBand> bands, QString message = {});
  const Timeline* timeline() const { return timeline_.get(); }
  const std::vector<RankBand>& bands() const { return bands_; }
  // The communication pattern a comm event's name is (braid/comm_kernels.h:
  // NCCL's, TE's userbuffers', PyTorch's symmetric memory's, peer copies),
  // by name index; -1 where it names none. Comm events are coloured by it.
  int CommPatternOfName(int32_t name) const {
    return name >= 0 && size_t(name) < comm_pattern_.size() ? comm_pattern_[size_t(name)] : -1;
  }
  // The patterns the timeline's comm events show, for the legend.
  const std::vector<CommPattern>& comm_patterns() const { return comm_patterns_; }
  // Text written on events before their names, keyed by (rank, stored
  // start): an imported trace's GEMMs with their label, method and verdict
  // (braid/view/gemm_rows.h). Cleared by SetTimeline.
  void SetEventNotes(std::map<std::pair<int, int64_t>, std::string> notes);
  const std::string* NoteOf(int rank, int64_t start_ns) const {
    const auto it = notes_.find({rank, start_ns});
    return it == notes_.end() ? nullptr : &it->second;
  }

  const ViewRange& view() const { return view_; }
  void SetView(ViewRange r);
  void FitAll();

  const QString& message() const { return message_; }
  std::optional<EventRef> selected() const { return selected_; }
  const std::vector<EventRef>& transfer_partners() const { return matches_; }
  void SelectEvent(std::optional<EventRef> e);
  // The selected time range (relative ns, ordered) and its figures.
  std::optional<ViewRange> selected_range() const { return range_; }
  void SelectRange(double t0, double t1);
  void SetCollapsed(int rank, bool collapsed);

  // Geometry (relative ns <-> x), for painting and tests.
  double plot_width() const { return std::max(1, width() - kHeaderWidth); }
  double XOfTime(double rel_ns) const;
  double TimeAtX(double x) const;
  const std::vector<RankLayout>& layout() const { return layout_; }
  std::optional<EventRef> EventAt(QPoint p) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void viewChanged(braid::view::ViewRange r);
  void eventSelected(std::optional<braid::view::EventRef> e);
  void rangeSelected(braid::view::RangeStats stats);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;

 private:
  enum class Drag { kNone, kPan, kRange };
  void Relayout();
  std::optional<int> RankHeaderAt(QPoint p) const;

  std::shared_ptr<const Timeline> timeline_;
  std::vector<RankBand> bands_;
  std::vector<int8_t> comm_pattern_;  // by name index (CommPatternOfName)
  std::vector<CommPattern> comm_patterns_;
  std::map<std::pair<int, int64_t>, std::string> notes_;
  QString message_;
  ViewRange view_;
  std::optional<EventRef> selected_;
  std::vector<EventRef> matches_;  // the selected event's transfer partners
  std::optional<ViewRange> range_;
  std::set<int> collapsed_;
  std::vector<RankLayout> layout_;
  int content_height_ = kAxisHeight;

  Drag drag_ = Drag::kNone;
  QPoint press_pos_;
  ViewRange press_view_;
  bool moved_ = false;
};

}  // namespace braid::view
