// A trial's key and samples (braid/stored_text.h); its config JSON is in
// stored_config.cc.
#include "braid/stored_text.h"

namespace braid {

std::string EncodeTrialKey(const TrialKey& k) { return TrialKeyPrefix(k.target) + k.config + "|" + k.stage; }

std::string TrialKeyPrefix(std::string_view target) { return std::string(target) + "|"; }

Result<TrialKey> DecodeTrialKey(std::string_view key) {
  const size_t first = key.find('|');
  const size_t last = key.rfind('|');
  if (first == std::string_view::npos || first == last) {
    return Status::Invalid("trial key '" + OneLine(key) + "' is not target|config|stage");
  }
  return TrialKey{std::string(key.substr(0, first)), std::string(key.substr(first + 1, last - first - 1)),
                  std::string(key.substr(last + 1))};
}

std::string EncodeSamples(const std::vector<double>& samples_ns) { return nlohmann::json(samples_ns).dump(); }

Result<std::vector<double>> DecodeSamples(std::string_view text, std::string_view where) {
  const nlohmann::json samples = nlohmann::json::parse(text, nullptr, false);
  if (!samples.is_array() || samples.empty()) return DamagedStore(where, "no usable samples");
  std::vector<double> ns;
  ns.reserve(samples.size());
  for (const auto& v : samples) {
    if (!v.is_number()) return DamagedStore(where, "a sample that is not a number");
    ns.push_back(v.get<double>());
  }
  return ns;
}

}  // namespace braid
