#include "braid/plan.h"
#include "braid/event.h"
#include "braid/name_table.h"

namespace braid {

std::string_view StepKindName(StepKind k) {
  switch (k) {
    case StepKind::kGemm:
      return "gemm";
    case StepKind::kSend:
      return "send";
    case StepKind::kRecv:
      return "recv";
    case StepKind::kReduce:
      return "reduce";
    case StepKind::kCopy:
      return "copy";
    case StepKind::kCollective:
      return "collective";
    case StepKind::kCompute:
      return "compute";
    case StepKind::kFused:
      return "fused";
  }
  return "?";
}

EventKind EventKindOf(StepKind kind) {
  switch (kind) {
    case StepKind::kGemm:
    case StepKind::kCompute:
    case StepKind::kFused:
      return EventKind::kCompute;
    case StepKind::kReduce:
      return EventKind::kReduce;
    case StepKind::kCopy:
      return EventKind::kCopy;
    case StepKind::kSend:
    case StepKind::kRecv:
    case StepKind::kCollective:
      return EventKind::kComm;
  }
  return EventKind::kMarker;
}

namespace {

// In the order a refusal lists them (not the enum's).
constexpr NameTable<CollectiveKind, 3> kCollectiveNames{{
    {CollectiveKind::kAllReduce, "all_reduce"},
    {CollectiveKind::kAllGather, "all_gather"},
    {CollectiveKind::kReduceScatter, "reduce_scatter"},
}};
static_assert(IsOneToOne(kCollectiveNames));

}  // namespace

std::string_view CollectiveName(CollectiveKind k) { return NameIn(kCollectiveNames, k); }

Result<CollectiveKind> ParseCollectiveKind(std::string_view name) {
  return ParseNamed(kCollectiveNames, "collective", name);
}

std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kCompute:
      return "compute";
    case EventKind::kComm:
      return "comm";
    case EventKind::kReduce:
      return "reduce";
    case EventKind::kCopy:
      return "copy";
    case EventKind::kSync:
      return "sync";
    case EventKind::kMarker:
      return "marker";
  }
  return "?";
}

size_t Plan::total_steps() const {
  size_t n = 0;
  for (const RankPlan& r : ranks) n += r.steps.size();
  return n;
}

std::vector<OpOutput> RankPlan::Outputs() const {
  if (!outputs.empty()) return outputs;
  return {OpOutput{0, output, output_window}};
}

bool InOpScope(std::string_view step, std::string_view op) {
  return !op.empty() && step.size() > op.size() && step[op.size()] == '.' && step.substr(0, op.size()) == op;
}

OpKnobs KnobsOf(const OverlapConfig& c) {
  return {.comm_sms = c.comm_sms, .comm_engine = c.comm_engine, .sm_margin = c.sm_margin, .margin_sms = c.comm_sms};
}

OpKnobs Plan::op_knobs(int i) const { return ops.empty() ? KnobsOf(config) : ops[size_t(i)].knobs; }

DType Plan::op_comm_dtype(int i) const { return ops.empty() ? CommDType(workload, config) : ops[size_t(i)].comm_dtype; }

bool Plan::op_products(int i) const {
  if (ops.empty()) return workload.op == Op::kAgGemm;
  const PlanOp& o = ops[size_t(i)];
  return o.local || o.workload.op == Op::kAgGemm;
}

}  // namespace braid
