#include "vertical_scroll.h"

namespace braid::view {

QScrollArea* VerticalScroll(QWidget* w) {
  auto* s = new QScrollArea;
  s->setWidget(w);
  s->setWidgetResizable(true);
  s->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  return s;
}

}  // namespace braid::view
