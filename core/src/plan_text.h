// How plan errors name things, one wording for the plan checker and the plan
// graph ("rank 1 step 4 (send)", "'partial' rows 0+2 x4 stride 8"), and the
// per-step rules both of them enforce: each an inline test (both run it on
// every step) and the error that names the step.
#pragma once

#include <string>

#include "braid/plan.h"
#include "braid/status.h"

namespace braid {

std::string StepRef(int rank, const Step& s);
// @pre g.buffer names one of rp's buffers.
std::string RegionText(const RankPlan& rp, const Region& g);

// `index`: the step's position in RankPlan::steps.
inline bool StepIdValid(size_t index, const Step& s) { return s.id == int(index); }
inline bool StepDepsValid(const Step& s) {
  for (int d : s.deps) {
    if (d < 0 || d >= s.id) return false;
  }
  return true;
}
inline bool StepLaneValid(const Plan& plan, const Step& s) { return s.lane >= 0 && s.lane < int(plan.lanes.size()); }
// Sends and recvs name a rank; other kinds pass.
inline bool StepPeerValid(const Plan& plan, const Step& s) {
  return (s.kind != StepKind::kSend && s.kind != StepKind::kRecv) || (s.peer >= 0 && s.peer < plan.tp());
}

// Each @pre its test failed.
Status StepIdError(int rank, size_t index, const Step& s);
Status StepDepsError(int rank, const Step& s);
Status StepLaneError(const Plan& plan, int rank, const Step& s);
Status StepPeerError(const Plan& plan, int rank, const Step& s);

}  // namespace braid
