// The details of the selected event, or of the selected time range.
#pragma once

#include <QTableWidget>

#include "braid/view/event_details.h"
#include "braid/view/overlap_band.h"

namespace braid::view {

class DetailsPanel : public QTableWidget {
  Q_OBJECT

 public:
  explicit DetailsPanel(QWidget* parent = nullptr);
  void ShowLines(const std::vector<DetailLine>& lines);
  void ShowRange(const RangeStats& s);
  void Clear() { ShowLines({}); }
  // The value shown for `field`, or "" (for tests and the status bar).
  QString Value(const QString& field) const;
};

}  // namespace braid::view
