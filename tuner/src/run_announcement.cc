#include "run_announcement.h"

#include <cstring>
#include <exception>
#include <string_view>

#include <nlohmann/json.hpp>

#include "braid/plan_filter.h"
#include "braid/planner.h"
#include "braid/run_record.h"

namespace braid::tuning {

namespace {

class Fnv {
 public:
  void Bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ b[i]) * 1099511628211ull;
  }
  void Int(int64_t v) { Bytes(&v, sizeof v); }
  void Real(double v) { Bytes(&v, sizeof v); }
  void Text(std::string_view s) {
    Int(int64_t(s.size()));
    Bytes(s.data(), s.size());
  }
  void Work(const Workload& w) {
    for (int64_t v : {int64_t(w.op), w.m, w.n, w.k, int64_t(w.dtype), int64_t(w.tp)}) Int(v);
  }
  void Span(const Region& r) {
    for (int64_t v : {int64_t(r.buffer), r.row, r.rows, int64_t(r.pieces), r.stride}) Int(v);
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 1469598103934665603ull;
};

void HashRank(Fnv& f, const RankPlan& rp) {
  for (const BufferDecl& b : rp.buffers) {
    f.Text(b.name);
    const InputWindow& in = b.input;
    for (int64_t v : {b.rows, b.cols, int64_t(b.role), int64_t(b.op), int64_t(in.matrix), in.row0, in.rows, in.col0,
                      in.cols, in.dst_row})
      f.Int(v);
  }
  for (const Step& s : rp.steps) {
    for (int64_t v : {int64_t(s.id), int64_t(s.kind), int64_t(s.collective), int64_t(s.lane), int64_t(s.peer), s.match,
                      int64_t(s.chunk), int64_t(s.ring_step), s.bytes, int64_t(s.op), int64_t(s.accumulate),
                      int64_t(s.deps.size())})
      f.Int(v);
    for (int d : s.deps) f.Int(d);
    f.Text(s.name);
    f.Span(s.a);
    f.Span(s.b);
    f.Span(s.c);
    f.Real(s.flops);
  }
  for (const OpOutput& o : rp.Outputs()) {
    for (int64_t v : {int64_t(o.op), int64_t(o.buffer), o.window.row0, o.window.rows, o.window.col0, o.window.cols})
      f.Int(v);
  }
}

const char* PartName(PlanPart p) {
  switch (p) {
    case PlanPart::kWhole:
      return "whole";
    case PlanPart::kComputeAlone:
      return "compute";
    case PlanPart::kCommAlone:
      return "comm";
  }
  return "whole";
}

}  // namespace

Result<Plan> RebuildPlan(const Workload& w, const OverlapConfig& config, PlanPart part) {
  Result<Plan> plan = BuildPlan(w, config);
  if (!plan.ok() || part == PlanPart::kWhole) return plan;
  if (part == PlanPart::kCommAlone) return FilterPlan(*plan, IsCommStep);
  return FilterPlan(*plan, [](const Step& s) { return !IsCommStep(s); });
}

uint64_t PlanFingerprint(const Plan& plan) {
  Fnv f;
  f.Work(plan.workload);
  f.Text(plan.config.Describe());
  for (const Lane& l : plan.lanes) {
    f.Text(l.name);
    f.Int(int64_t(l.kind));
    f.Int(l.priority);
  }
  f.Int(int64_t(plan.ranks.size()));
  for (const RankPlan& rp : plan.ranks) HashRank(f, rp);
  for (const PlanOp& op : plan.ops) {
    f.Text(op.name);
    f.Work(op.workload);
    for (int64_t v : {int64_t(op.gemm), int64_t(op.local), int64_t(op.part)}) f.Int(v);
  }
  return f.value();
}

Result<PlanPart> PartOf(const Plan& plan) {
  if (plan.is_layer()) return Status::Invalid("a layer plan cannot be announced to the other ranks");
  const uint64_t mine = PlanFingerprint(plan);
  for (PlanPart part : {PlanPart::kWhole, PlanPart::kComputeAlone, PlanPart::kCommAlone}) {
    Result<Plan> p = RebuildPlan(plan.workload, plan.config, part);
    if (p.ok() && PlanFingerprint(*p) == mine) return part;
  }
  return Status::Invalid("plan of " + plan.workload.Describe() + ", " + plan.config.Describe() +
                         " is not the planner's (nor its compute or communication alone): the other ranks cannot "
                         "rebuild it");
}

Blob EncodeAnnouncement(const RunAnnouncement& a) {
  nlohmann::json j;
  if (a.finished) {
    j = {{"finished", true}, {"exit_code", a.exit_code}};
  } else {
    const Workload& w = a.workload;
    j = {{"finished", false},
         {"workload",
          {{"op", OpName(w.op)}, {"m", w.m}, {"n", w.n}, {"k", w.k}, {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}}},
         {"config", ConfigJson(a.config)},
         {"part", PartName(a.part)},
         {"fingerprint", a.fingerprint},
         {"options",
          {{"warmup", a.options.warmup},
           {"iters", a.options.iters},
           {"verify", a.options.verify},
           {"trace", a.options.trace},
           {"seed", a.options.seed}}}};
  }
  const std::string text = j.dump();
  return Blob(text.begin(), text.end());
}

Result<RunAnnouncement> DecodeAnnouncement(const Blob& blob) {
  const Status damaged = Status::Invalid("rank 0 sent a run this rank cannot read (a different braid build?)");
  const nlohmann::json j = nlohmann::json::parse(blob.begin(), blob.end(), nullptr, false);
  if (!j.is_object()) return damaged;
  RunAnnouncement a;
  try {
    a.finished = j.at("finished").get<bool>();
    if (a.finished) {
      a.exit_code = j.at("exit_code").get<int>();
      return a;
    }
    const nlohmann::json& w = j.at("workload");
    Result<Op> op = ParseOp(w.at("op").get<std::string>());
    Result<DType> dtype = ParseDType(w.at("dtype").get<std::string>());
    if (!op.ok() || !dtype.ok()) return damaged;
    a.workload = {*op,    w.at("m").get<int64_t>(), w.at("n").get<int64_t>(), w.at("k").get<int64_t>(),
                  *dtype, w.at("tp").get<int>()};
    Result<OverlapConfig> config = ConfigFromJson(j.at("config"));
    if (!config.ok()) return damaged;
    a.config = *config;
    const std::string part = j.at("part").get<std::string>();
    bool known = false;
    for (PlanPart p : {PlanPart::kWhole, PlanPart::kComputeAlone, PlanPart::kCommAlone}) {
      if (part != PartName(p)) continue;
      a.part = p;
      known = true;
    }
    if (!known) return damaged;
    a.fingerprint = j.at("fingerprint").get<uint64_t>();
    const nlohmann::json& o = j.at("options");
    a.options.warmup = o.at("warmup").get<int>();
    a.options.iters = o.at("iters").get<int>();
    a.options.verify = o.at("verify").get<bool>();
    a.options.trace = o.at("trace").get<bool>();
    a.options.seed = o.at("seed").get<uint64_t>();
  } catch (const std::exception&) {
    return damaged;  // a missing field or one of the wrong type
  }
  return a;
}

}  // namespace braid::tuning
