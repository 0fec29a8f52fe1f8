// Paints a TimelineWidget's state. Work per paint follows the pixels drawn:
// rows are folded (level_of_detail.h) and bands coalesced per pixel.
#pragma once

#include <QPainter>

#include "braid/view/timeline_widget.h"

namespace braid::view {

void PaintTimeline(QPainter& p, const TimelineWidget& w);

}  // namespace braid::view
