// libFuzzer target: bytes = a preset file. Parsing must never crash; a
// parsed file must write back to text that parses to the same text again,
// and lookups in it must find what they were built from.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "braid/presets.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto f = braid::ParsePresetFile(text, "fuzz.toml");
  if (!f.ok()) {
    const std::string& m = f.status().message();
    braid::fuzz::Require(m.find('\n') == std::string::npos, "one-line error");
    braid::fuzz::Require(m.rfind("fuzz.toml", 0) == 0, "error names the file");
    return 0;
  }
  const std::string written = braid::WritePresets(*f);
  auto again = braid::ParsePresetFile(written, "written.toml");
  braid::fuzz::Require(again.ok(), "written presets parse");
  braid::fuzz::Require(again->presets.size() == f->presets.size(), "same preset count");
  braid::fuzz::Require(again->dp_presets.size() == f->dp_presets.size(), "same DP preset count");
  braid::fuzz::Require(braid::WritePresets(*again) == written, "write is a fixed point");
  braid::PresetFile merged;
  braid::fuzz::Require(braid::MergeInto(merged, *f).ok(), "merge into empty");
  braid::fuzz::Require(merged.presets.size() <= f->presets.size(), "merge never grows");
  const braid::PresetTable table = braid::PresetTable::FromFile(std::move(*again));
  for (const braid::Preset& p : table.presets()) {
    // Each entry answers for its own backend (cpu entries only when asked).
    const braid::LookupResult r = table.Lookup(p.key.workload, p.key.gpu, p.key.topology, p.backend);
    braid::fuzz::Require(r.match == braid::PresetMatch::kExact && r.preset != nullptr, "own key is exact");
    braid::fuzz::Require(r.preset->key.workload.m == p.key.workload.m, "exact has the same M");
    braid::Workload near = p.key.workload;
    near.m += 1;
    braid::fuzz::Require(table.Lookup(near, p.key.gpu, p.key.topology, p.backend).preset != nullptr,
                         "a neighbour is found");
  }
  for (const braid::DpPreset& p : table.dp_presets()) {
    const braid::DpPreset* own = table.LookupDp(p.key, p.backend);
    braid::fuzz::Require(own != nullptr && own->key == p.key, "a DP preset answers its own key");
  }
  return 0;
}
