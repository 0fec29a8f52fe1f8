#include "braid/te_trace_check.h"

#include <array>
#include <set>

namespace braid {

std::string_view TeKeyFindingName(TeKeyFinding f) {
  switch (f) {
    case TeKeyFinding::kSeen:
      return "seen";
    case TeKeyFinding::kDidNotOverlap:
      return "did_not_overlap";
    case TeKeyFinding::kOtherMethod:
      return "other_method";
    case TeKeyFinding::kNotInTrace:
      return "not_in_trace";
  }
  return "?";
}

namespace {

// TE's module ranges (transformer_engine/pytorch/module/*.py at d0067d0da6cb):
// "transformer_engine.<Module>.<forward|backward>.<ub_name>.<part>".
constexpr std::array<std::string_view, 3> kModules = {
    "transformer_engine._Linear.", "transformer_engine._LayerNormLinear.", "transformer_engine._LayerNormMLP."};
constexpr std::array<std::string_view, 4> kUbNames = {"qkv", "proj", "fc1", "fc2"};

// The method a ub_cfgs method name shows as.
std::string_view SeenAs(std::string_view te_method) {
  if (te_method == "ring_exchange") return OverlapMethodName(OverlapMethod::kRing);
  if (te_method == "pipeline") return OverlapMethodName(OverlapMethod::kPipeline);
  if (te_method == "bulk") return OverlapMethodName(OverlapMethod::kBulk);
  return OverlapMethodName(OverlapMethod::kNone);  // external
}

}  // namespace

std::string TeKeyOfLabel(std::string_view label) {
  std::string_view rest;
  for (std::string_view m : kModules) {
    if (label.starts_with(m)) rest = label.substr(m.size());
  }
  if (rest.empty()) return "";
  bool forward = false;
  if (rest.starts_with("forward.")) {
    forward = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("backward.")) {
    rest.remove_prefix(9);
  } else {
    return "";
  }
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return "";
  const std::string_view ub = rest.substr(0, dot), part = rest.substr(dot + 1);
  bool known = false;
  for (std::string_view u : kUbNames) known = known || u == ub;
  if (!known) return "";
  if (forward && part == "gemm") return std::string(ub) + "_fprop";
  if (!forward && part == "dgrad_gemm") return std::string(ub) + "_dgrad";
  if (!forward && part == "wgrad_gemm") return std::string(ub) + "_wgrad";
  return "";
}

std::vector<TeKeyCheck> CheckTeUbCfgs(const GemmOverlapReport& report, const std::vector<UbKeyExpectation>& configs) {
  std::vector<TeKeyCheck> out;
  for (const UbKeyExpectation& c : configs) {
    TeKeyCheck check;
    check.config = c;
    std::set<int> chunks;
    for (const GemmOverlapRow& row : report.rows) {
      if (TeKeyOfLabel(row.label) != c.key) continue;
      ++check.gemms;
      ++check.methods[std::string(OverlapMethodName(row.method))];
      ++check.verdicts[std::string(GemmVerdictName(row.verdict))];
      chunks.insert(row.kernels);
    }
    if (check.gemms == 0) {
      check.finding = TeKeyFinding::kNotInTrace;
    } else {
      const std::string want(SeenAs(c.method));
      const int matching = check.methods.count(want) ? check.methods.at(want) : 0;
      if (matching < check.gemms) {
        check.finding = TeKeyFinding::kOtherMethod;
      } else if (want == OverlapMethodName(OverlapMethod::kNone)) {
        check.finding = TeKeyFinding::kSeen;  // external: nothing of its own to overlap
      } else {
        const auto late =
            check.verdicts.find(std::string(GemmVerdictName(GemmVerdict::kNotOverlappedAlthoughConfigured)));
        check.finding =
            late != check.verdicts.end() && late->second > 0 ? TeKeyFinding::kDidNotOverlap : TeKeyFinding::kSeen;
      }
      if (c.method == "pipeline" && c.num_splits > 0 && !(chunks.size() == 1 && *chunks.begin() == c.num_splits)) {
        std::string seen;
        for (int n : chunks) seen += (seen.empty() ? "" : ", ") + std::to_string(n);
        check.note = "num_splits " + std::to_string(c.num_splits) + " in the file, GEMM chunks seen: " + seen;
      }
    }
    out.push_back(std::move(check));
  }
  return out;
}

}  // namespace braid
