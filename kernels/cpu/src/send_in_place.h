// Which of a rank's send steps may send straight from their buffer.
#pragma once

#include <vector>

#include "braid/plan.h"

namespace braid::cpu {

// Indexed by step id: true for a send step whose rows no later step of the
// rank writes (gemm, reduce, copy and recv outputs, a collective's c). Such
// a send leaves its rows unchanged until the iteration ends, where its lane
// settles it (the next iteration's writers start after every lane's
// settle). Later steps are the only possible writers after a send: deps name
// earlier steps and a lane runs in id order, and CheckPlanSemantics rejects
// a write that is not ordered with a read of the same rows. Other sends copy.
std::vector<bool> SendsInPlace(const RankPlan& plan);

}  // namespace braid::cpu
