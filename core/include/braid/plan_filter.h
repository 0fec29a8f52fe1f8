// A plan with some steps taken out, for single-part runs: the compute of a
// plan alone, or its communication alone (docs/design.md's lower bound).
#pragma once

#include <functional>

#include "braid/plan.h"

namespace braid {

// Keeps the steps `keep` accepts, in order, on every rank. Dependencies on
// removed steps are dropped; lane order is kept. Send/recv pairs and
// collectives must be kept or removed whole (the result is not checked).
Plan FilterPlan(const Plan& plan, const std::function<bool(const Step&)>& keep);

bool IsCommStep(const Step& s);  // send, recv, collective

}  // namespace braid
