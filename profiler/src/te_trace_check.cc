#include "braid/te_trace_check.h"

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

// The method a ub_cfgs method name shows as.
std::string_view SeenAs(std::string_view te_method) {
  if (te_method == "ring_exchange") return OverlapMethodName(OverlapMethod::kRing);
  if (te_method == "pipeline") return OverlapMethodName(OverlapMethod::kPipeline);
  if (te_method == "bulk") return OverlapMethodName(OverlapMethod::kBulk);
  return OverlapMethodName(OverlapMethod::kNone);  // external
}

}  // namespace

std::vector<TeKeyCheck> CheckTeUbCfgs(const GemmOverlapReport& report, const std::vector<UbKeyExpectation>& configs,
                                      int tp) {
  std::vector<TeKeyCheck> out;
  for (const UbKeyExpectation& c : configs) {
    TeKeyCheck check;
    check.config = c;
    std::set<int> chunks;
    for (const GemmOverlapRow& row : report.rows) {
      if (row.key != c.key) continue;
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
      std::string seen;
      for (int n : chunks) seen += (seen.empty() ? "" : ", ") + std::to_string(n);
      const bool one_count = chunks.size() == 1;
      if (c.method == "pipeline" && c.num_splits > 0 && !(one_count && *chunks.begin() == c.num_splits)) {
        check.note = "num_splits " + std::to_string(c.num_splits) + " in the file, GEMM chunks seen: " + seen;
      } else if (c.method == "ring_exchange" && tp > 1 && check.methods.count("ring") &&
                 !(one_count && *chunks.begin() == tp)) {
        check.note = "ring_exchange at TP " + std::to_string(tp) + " runs " + std::to_string(tp) +
                     " GEMM chunks, GEMM chunks seen: " + seen;
      }
    }
    out.push_back(std::move(check));
  }
  return out;
}

}  // namespace braid
