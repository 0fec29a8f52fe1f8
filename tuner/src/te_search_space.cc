// What TransformerEngine can run for a tuning target (braid/tune.h
// TeSearchSpaceOfTarget): every candidate is a config TeOptionsOf accepts,
// so a winner exports exactly.
#include <set>
#include <string>

#include "braid/te_ub_cfgs.h"
#include "braid/tune.h"

namespace braid {

namespace {

constexpr int kSmBudgets[] = {1, 2, 4, 8, 16, 24, 32};
constexpr int kMarginOnCe[] = {1, 2, 4, 8, 16};
constexpr int kPipelineSplits[] = {2, 3, 4, 6, 8};

struct Space {
  const TuneTarget& target;
  const BackendKnobs& knobs;
  int gpu_sms;
  std::vector<OverlapConfig> out;
  std::set<std::string> seen;

  // c, in each priority the backend has, if the planner takes it.
  void Add(OverlapConfig c) {
    for (bool high : {true, false}) {
      if (!high && !knobs.priorities) break;
      c.comm_high_priority = high;
      const Result<Plan> plan = PlanOfTarget(target, c);
      if (!plan.ok() || !seen.insert(c.Describe()).second) continue;
      out.push_back(c);
    }
  }
  bool Fits(int sms) const { return gpu_sms <= 0 || sms < gpu_sms; }
  // SM budgets: TE's default alone where the backend has no SMs.
  std::vector<int> Budgets(int te_default) const {
    if (!knobs.comm_sms) return {te_default};
    std::vector<int> b;
    for (int s : kSmBudgets) {
      if (Fits(s)) b.push_back(s);
    }
    return b;
  }
  // set_sm_margin values: TE's default first, the other only where the
  // backend has comm SMs for a margin to leave.
  std::vector<bool> Margins(bool te_default) const {
    if (!knobs.comm_sms) return {te_default};
    return {te_default, !te_default};
  }
};

// TE's ring_exchange: `a` is ring (all-gather) or direct (reduce-scatter).
void AddRingExchange(Space& s, Algorithm a) {
  OverlapConfig c;
  c.algorithm = a;
  c.comm_engine = CommEngine::kCopyEngine;     // TE's default, use_ce 1
  c.comm_sms = a == Algorithm::kRing ? 0 : 1;  // num_sm 1 holds nothing in a copy-engine all-gather
  s.Add(c);
  if (s.knobs.comm_sms) {
    c.sm_margin = true;
    for (int sms : kMarginOnCe) {
      if (!s.Fits(sms)) continue;
      c.comm_sms = sms;
      s.Add(c);
    }
  }
  if (!s.knobs.copy_engine) return;  // without copy engines use_ce changes nothing
  c.comm_engine = CommEngine::kSm;
  for (bool margin : s.Margins(false)) {
    c.sm_margin = margin;
    for (int sms : s.Budgets(1)) {
      c.comm_sms = sms;
      s.Add(c);
    }
  }
}

void AddPipeline(Space& s) {
  OverlapConfig c;
  c.algorithm = Algorithm::kChunked;
  for (int splits : kPipelineSplits) {
    c.chunks = splits;
    for (bool margin : s.Margins(true)) {
      c.sm_margin = margin;
      for (int sms : s.Budgets(16)) {
        c.comm_sms = sms;
        s.Add(c);
      }
    }
  }
}

// The two collectives of TE's bulk pair, each on its own budget.
void AddBulk(Space& s) {
  OverlapConfig c;
  c.algorithm = Algorithm::kBulk;
  for (bool margin : s.Margins(true)) {
    c.sm_margin = margin;
    for (int gather : s.Budgets(16)) {
      for (int scatter : s.Budgets(16)) {
        c.comm_sms = gather;
        c.wgrad_comm_sms = scatter == gather ? 0 : scatter;
        s.Add(c);
      }
    }
  }
}

}  // namespace

std::vector<OverlapConfig> TeSearchSpaceOfTarget(const TuneTarget& t, const BackendKnobs& knobs, int gpu_sms) {
  Space s{t, knobs, gpu_sms, {}, {}};
  const bool pair = t.train_ops.has_value();
  const bool column = pair && !t.train_ops->ops.empty() && t.train_ops->ops.front().column;
  if (t.w.op == Op::kAgGemm) {
    AddRingExchange(s, Algorithm::kRing);  // an fprop all-gather, or a row layer's dgrad
  } else if (t.w.op == Op::kGemmRs) {
    // TE's default first where it has one: bulk for the column pair,
    // pipeline for a forward reduce-scatter.
    if (column) AddBulk(s);
    AddPipeline(s);
    AddRingExchange(s, Algorithm::kDirect);
  }
  return s.out;
}

}  // namespace braid
