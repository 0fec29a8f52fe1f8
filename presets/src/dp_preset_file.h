// Reading a preset file's [[dp_preset]] entries (version 5; format:
// presets/README.md), for ParsePresetFile.
#pragma once

#include <string_view>
#include <vector>

#include "braid/presets.h"
#include "braid/status.h"
#include "braid/toml_reader.h"

namespace braid {

// The root's `dp_preset` array of tables, each checked; none when absent.
// Invalid ("file:line:col: dp_preset[i].field rule") for a bad entry, an
// entry in a file below version 5, or two entries for one slot.
Result<std::vector<DpPreset>> ParseDpPresets(const TomlValue& root, std::string_view origin, int version);

}  // namespace braid
