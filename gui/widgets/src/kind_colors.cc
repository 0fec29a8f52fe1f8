#include "braid/view/kind_colors.h"

namespace braid::view {

QColor KindColor(EventKind k) {
  switch (k) {
    case EventKind::kCompute:
      return {0x3B, 0x6F, 0xB6};
    case EventKind::kComm:
      return {0xE8, 0x89, 0x1D};
    case EventKind::kReduce:
      return {0x4C, 0xAF, 0x50};
    case EventKind::kCopy:
      return {0x8E, 0x5C, 0xC2};
    case EventKind::kSync:
      return {0x9E, 0x9E, 0x9E};
    case EventKind::kMarker:
      return {0x30, 0x30, 0x30};
  }
  return Qt::black;
}

QColor FoldColor(EventKind k) { return KindColor(k).darker(140); }

}  // namespace braid::view
