#include "braid/plan_filter.h"

#include <vector>

namespace braid {

bool IsCommStep(const Step& s) {
  return s.kind == StepKind::kSend || s.kind == StepKind::kRecv || s.kind == StepKind::kCollective;
}

Plan FilterPlan(const Plan& plan, const std::function<bool(const Step&)>& keep) {
  Plan out = plan;
  for (RankPlan& rp : out.ranks) {
    std::vector<int> new_id(rp.steps.size(), -1);
    std::vector<Step> kept;
    for (const Step& s : rp.steps) {
      if (!keep(s)) continue;
      new_id[size_t(s.id)] = int(kept.size());
      Step t = s;
      t.id = int(kept.size());
      t.deps.clear();
      for (int d : s.deps) {
        if (new_id[size_t(d)] >= 0) t.deps.push_back(new_id[size_t(d)]);
      }
      kept.push_back(std::move(t));
    }
    rp.steps = std::move(kept);
  }
  return out;
}

}  // namespace braid
