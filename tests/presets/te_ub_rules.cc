#include "te_ub_rules.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace braid::testing_te {

namespace {

// The methods TE takes for each key, the first being its default.
const std::map<std::string, std::vector<std::string>>& KeyMethods() {
  static const std::map<std::string, std::vector<std::string>> kMethods = {
      {"qkv_fprop", {"ring_exchange"}},
      {"fc1_fprop", {"ring_exchange"}},
      {"proj_fprop", {"pipeline", "ring_exchange"}},
      {"fc2_fprop", {"pipeline", "ring_exchange"}},
      {"proj_dgrad", {"ring_exchange"}},
      {"fc2_dgrad", {"ring_exchange"}},
      {"qkv_dgrad", {"bulk", "ring_exchange", "pipeline"}},
      {"fc1_dgrad", {"bulk", "ring_exchange", "pipeline"}},
      {"qkv_wgrad", {"bulk"}},
      {"fc1_wgrad", {"bulk"}},
      {"proj_wgrad", {"external"}},
      {"fc2_wgrad", {"external"}}};
  return kMethods;
}

bool AllGather(const std::string& key) {
  static const std::set<std::string> kAllGather = {"qkv_fprop", "fc1_fprop", "proj_dgrad",
                                                   "fc2_dgrad", "qkv_wgrad", "fc1_wgrad"};
  return kAllGather.count(key) > 0;
}

std::string MethodOf(const UbFields& f) { return f.count("method") ? f.at("method") : ""; }

// What TE runs `key` with: the dict's method, or TE's default when the key
// (or its method) is left out.
std::string EffectiveMethod(const UbCfgs& cfgs, const std::string& key) {
  const auto it = cfgs.find(key);
  if (it != cfgs.end() && it->second.count("method")) return it->second.at("method");
  return KeyMethods().at(key).front();
}

void CheckMethod(const std::string& key, const std::string& method, std::vector<std::string>& bad) {
  static const std::set<std::string> kMethods = {"ring_exchange", "pipeline", "bulk", "external"};
  if (!kMethods.count(method)) {
    bad.push_back("method '" + method + "'");
    return;
  }
  // pipeline is TE's reduce-scatter overlap: initialize_ub raises on it for an all-gather.
  if (AllGather(key) && method == "pipeline") {
    bad.push_back("pipeline on an all-gather GEMM");
    return;
  }
  const auto known = KeyMethods().find(key);
  if (known == KeyMethods().end()) return;
  const std::vector<std::string>& takes = known->second;
  if (std::find(takes.begin(), takes.end(), method) != takes.end()) return;
  std::string list;
  for (const std::string& m : takes) list += (list.empty() ? "" : ", ") + m;
  bad.push_back(method + " is not a method TE takes for " + key + " (it takes " + list + ")");
}

// The rules between a layer's dgrad and wgrad ("pairs" in the header).
void CheckPairs(const UbCfgs& cfgs, std::vector<std::string>& bad) {
  for (const char* layer : {"qkv", "fc1"}) {
    const std::string dgrad = std::string(layer) + "_dgrad", wgrad = std::string(layer) + "_wgrad";
    const std::string d = EffectiveMethod(cfgs, dgrad);
    if (cfgs.count(wgrad) && d != "bulk") {
      bad.push_back(wgrad + ": an entry beside " + dgrad + " on " + d + " (TE takes one only beside a bulk dgrad)");
    }
  }
  for (const char* layer : {"proj", "fc2"}) {
    const std::string dgrad = std::string(layer) + "_dgrad", wgrad = std::string(layer) + "_wgrad";
    const std::string d = EffectiveMethod(cfgs, dgrad);
    if (cfgs.count(wgrad) && MethodOf(cfgs.at(wgrad)) == "external" && d != "ring_exchange") {
      bad.push_back(wgrad + ": external beside " + dgrad + " on " + d + " (external needs its dgrad's ring_exchange)");
    }
  }
}

}  // namespace

UbCfgs ParseUbCfgs(const std::string& yaml) {
  UbCfgs out;
  std::istringstream in(yaml);
  std::string line, key;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != ' ') {
      key = line.substr(0, line.find(':'));
      out[key];
      continue;
    }
    const size_t colon = line.find(": ");
    out[key][line.substr(2, colon - 2)] = line.substr(colon + 2);
  }
  return out;
}

std::vector<std::string> TeEntryViolations(const std::string& key, const UbFields& f) {
  static const std::set<std::string> kFields = {"method",
                                                "is_reduce_scatter",
                                                "num_sm",
                                                "cga_size",
                                                "set_sm_margin",
                                                "num_splits",
                                                "aggregate",
                                                "atomic_gemm",
                                                "use_ce",
                                                "fp8_buf",
                                                "comm_priority",
                                                "gemm_priority",
                                                "pipeline_rs_overlap_first_gemm"};
  std::vector<std::string> bad;
  if (!KeyMethods().count(key)) bad.push_back("not a key TE reads");
  auto num = [&](const char* name) { return f.count(name) ? std::stoi(f.at(name)) : -1; };
  for (const auto& [name, value] : f) {
    if (!kFields.count(name)) bad.push_back("unknown field " + name);
  }
  CheckMethod(key, MethodOf(f), bad);
  // "Atomic GEMM overlap supported only for FP8 GEMM".
  if (num("atomic_gemm") != 0) bad.push_back("atomic_gemm " + f.at("atomic_gemm") + " on a non-FP8 GEMM");
  if (num("num_sm") < 1 || num("num_sm") > 32) bad.push_back("num_sm outside 1..32 (userbuffers' limit)");
  if (num("cga_size") < 1) bad.push_back("cga_size below 1");
  if (num("num_splits") < 1) bad.push_back("num_splits below 1");
  for (const char* flag : {"set_sm_margin", "use_ce"}) {
    if (num(flag) != 0 && num(flag) != 1) bad.push_back(std::string(flag) + " not 0/1");
  }
  return bad;
}

std::vector<std::string> TeRuleViolations(const UbCfgs& cfgs) {
  std::vector<std::string> bad;
  for (const auto& [key, fields] : cfgs) {
    for (const std::string& why : TeEntryViolations(key, fields)) bad.push_back(key + ": " + why);
  }
  CheckPairs(cfgs, bad);
  return bad;
}

}  // namespace braid::testing_te
