// Trial time by algorithm and knob: one column per algorithm, trials spread
// inside it by chunk count, each a dot at its median with its 95 % interval
// as a bar; the selected trial is ringed. A click picks the nearest dot.
// One target (op) at a time where a session tuned several (SetTarget), on
// a time axis that turns logarithmic when the slowest trial shown takes ten
// times the fastest (braid/view/trial_scale.h).
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "braid/view/session_trials.h"
#include "braid/view/trial_scale.h"

namespace braid::view {

class TrialPlot : public QWidget {
  Q_OBJECT

 public:
  explicit TrialPlot(QWidget* parent = nullptr);
  // Shows the first target's trials.
  void SetTrials(std::vector<TrialRow> rows);
  // The trials of one target only (TrialTargets); the axis fits them.
  void SetTarget(const std::string& op);
  const std::vector<std::string>& targets() const { return targets_; }
  const TrialScale& scale() const { return scale_; }
  void SetSelected(std::optional<size_t> index);
  // Where trial `index` is drawn (for tests); nullopt when it has no time
  // or is another target's.
  std::optional<QPointF> PointOf(size_t index) const;
  QSize sizeHint() const override { return {600, 260}; }

 signals:
  void trialClicked(int index);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  bool Shown(const TrialRow& t) const { return t.median_ns.has_value() && t.op == target_; }

  std::vector<TrialRow> rows_;
  std::vector<std::string> targets_;
  std::string target_;
  std::vector<std::string> algorithms_;
  std::vector<int> chunk_levels_;
  TrialScale scale_;
  std::optional<size_t> selected_;
};

}  // namespace braid::view
