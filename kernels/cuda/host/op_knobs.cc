#include "op_knobs.h"

#include <set>

namespace braid::cuda {

namespace {

std::string OpName(const Plan& plan, int i) { return plan.is_layer() ? plan.ops[size_t(i)].name : "the op"; }

// Ops that move data: a layer's local GEMMs and attention have no transfers.
bool Moves(const Plan& plan, int i) {
  if (!plan.is_layer()) return true;
  const PlanOp& op = plan.ops[size_t(i)];
  return op.gemm && !op.local;
}

}  // namespace

Result<std::vector<int>> SmCountTargets(const Plan& plan, int sm_count) {
  std::vector<int> out;
  for (int i = 0; i < plan.op_count(); ++i) {
    const OpKnobs k = plan.op_knobs(i);
    if (!k.sm_margin) {
      out.push_back(0);
      continue;
    }
    if (k.margin_sms <= 0) {
      return Status::Invalid(OpName(plan, i) +
                             ": `sm_margin` on the cuda backend needs `comm_sms` (the SMs to keep free; the "
                             "backend has no default count)");
    }
    if (k.margin_sms >= sm_count) {
      return Status::Invalid(OpName(plan, i) + ": `sm_margin` keeps " + std::to_string(k.margin_sms) +
                             " SMs free, which leaves the GEMM none of " + std::to_string(sm_count));
    }
    out.push_back(sm_count - k.margin_sms);
  }
  return out;
}

std::vector<std::string> PerOpKnobNotes(const Plan& plan) {
  std::set<std::string> engines, budgets;
  for (int i = 0; i < plan.op_count(); ++i) {
    if (!Moves(plan, i)) continue;
    const OpKnobs k = plan.op_knobs(i);
    if (k.comm_engine != plan.config.comm_engine) engines.insert(OpName(plan, i));
    if (k.comm_sms != plan.config.comm_sms) budgets.insert(OpName(plan, i));
  }
  auto list = [](const std::set<std::string>& s) {
    std::string out;
    for (const std::string& n : s) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  std::vector<std::string> notes;
  if (!engines.empty()) {
    notes.push_back("per-op comm engines not honoured: " + list(engines) + " ran on the run's transport (" +
                    std::string(CommEngineName(plan.config.comm_engine)) +
                    "; the cuda backend sets one transfer path per run)");
  }
  if (!budgets.empty()) {
    notes.push_back("per-op comm SMs not honoured: " + list(budgets) + " ran NCCL with the run's CTA budget (" +
                    std::to_string(plan.config.comm_sms) + "; one communicator per run)");
  }
  return notes;
}

}  // namespace braid::cuda
