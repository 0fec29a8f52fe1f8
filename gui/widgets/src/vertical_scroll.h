// A timeline fits its width to the view (zoom and pan move time, not pixels),
// so the views wrap it in a scroll area that scrolls rows only.
#pragma once

#include <QScrollArea>
#include <QWidget>

namespace braid::view {

// `w` in a new scroll area: resized to the area's width, scrolled vertically.
QScrollArea* VerticalScroll(QWidget* w);

}  // namespace braid::view
