#include "plan_text.h"

namespace braid {

std::string StepRef(int rank, const Step& s) {
  return "rank " + std::to_string(rank) + " step " + std::to_string(s.id) + " (" + s.name + ")";
}

std::string RegionText(const RankPlan& rp, const Region& g) {
  std::string out =
      "'" + rp.buffers[size_t(g.buffer)].name + "' rows " + std::to_string(g.row) + "+" + std::to_string(g.rows);
  if (g.pieces != 1) {
    out += " x" + std::to_string(g.pieces) + " stride " + std::to_string(g.stride);
  }
  return out;
}

Status StepIdError(int rank, size_t index, const Step& s) {
  return Status::Invalid("rank " + std::to_string(rank) + " step at index " + std::to_string(index) + " has id " +
                         std::to_string(s.id));
}

Status StepDepsError(int rank, const Step& s) {
  for (int d : s.deps) {
    if (d < 0 || d >= s.id) {
      return Status::Invalid(StepRef(rank, s) + ": dependency " + std::to_string(d) +
                             " does not name an earlier step of the rank");
    }
  }
  return Status::Internal(StepRef(rank, s) + ": no bad dependency found");
}

Status StepLaneError(const Plan& plan, int rank, const Step& s) {
  return Status::Invalid(StepRef(rank, s) + ": lane " + std::to_string(s.lane) + " does not exist (" +
                         std::to_string(plan.lanes.size()) + " lanes)");
}

Status StepPeerError(const Plan& plan, int rank, const Step& s) {
  return Status::Invalid(StepRef(rank, s) + ": peer " + std::to_string(s.peer) +
                         " is not a rank (P=" + std::to_string(plan.tp()) + ")");
}

}  // namespace braid
