// The viewer's colours, in one place so that the pixel tests check the same
// ones the painter uses.
#pragma once

#include <QColor>

#include "braid/comm_kernels.h"
#include "braid/event.h"

namespace braid::view {

QColor KindColor(EventKind k);
// A fold of many narrow events: the kind's colour, darker.
QColor FoldColor(EventKind k);
// A communication event whose pattern its name says (braid/comm_kernels.h):
// all-gathers keep the comm colour, the others their own shades of it.
QColor CommPatternColor(CommPattern p);

inline const QColor kOverlapColor{0x17, 0xA5, 0x89};  // compute and comm together
inline const QColor kExposedColor{0xD6, 0x27, 0x28};  // comm with no compute under it
inline const QColor kTailColor{0xC2, 0x18, 0x5B};     // last compute end to iteration end
inline const QColor kBandBackground{0xEE, 0xEE, 0xEE};
inline const QColor kRowBackground{0xFA, 0xFA, 0xFA};

}  // namespace braid::view
