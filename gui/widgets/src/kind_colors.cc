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

QColor CommPatternColor(CommPattern p) {
  switch (p) {
    case CommPattern::kAllGather:
      return KindColor(EventKind::kComm);
    case CommPattern::kReduceScatter:
      return {0xA0, 0x52, 0x2D};
    case CommPattern::kAllReduce:
      return {0xC9, 0xA2, 0x27};
    case CommPattern::kAllToAll:
      return {0x80, 0x80, 0x00};
    case CommPattern::kP2p:
      return {0xF2, 0x5C, 0x54};
    case CommPattern::kBarrier:
      return {0x8D, 0x6E, 0x63};
    case CommPattern::kReduce:
      return KindColor(EventKind::kReduce);
    case CommPattern::kOther:
      break;
  }
  return KindColor(EventKind::kComm);
}

}  // namespace braid::view
