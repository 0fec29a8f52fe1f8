// Trial time by algorithm and knob: one column per algorithm, trials spread
// inside it by chunk count, each a dot at its median with its 95 % interval
// as a bar; the selected trial is ringed. A click picks the nearest dot.
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "braid/view/session_trials.h"

namespace braid::view {

class TrialPlot : public QWidget {
  Q_OBJECT

 public:
  explicit TrialPlot(QWidget* parent = nullptr);
  void SetTrials(std::vector<TrialRow> rows);
  void SetSelected(std::optional<size_t> index);
  // Where trial `index` is drawn (for tests); nullopt when it has no time.
  std::optional<QPointF> PointOf(size_t index) const;
  QSize sizeHint() const override { return {600, 260}; }

 signals:
  void trialClicked(int index);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  std::vector<TrialRow> rows_;
  std::vector<std::string> algorithms_;
  std::vector<int> chunk_levels_;
  double lo_ = 0, hi_ = 1;
  std::optional<size_t> selected_;
};

}  // namespace braid::view
