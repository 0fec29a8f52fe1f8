// Topology data files (TOML, catalog/topologies/*.toml). The shipped files
// are compiled in, so `--topology h100-sxm` works from any directory; a path
// loads a user's own file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"
#include "braid/topology.h"

namespace braid {

// `origin` names the text in messages ("my.toml"). Errors say where:
// "my.toml:7:16: intra.bandwidth_gbs must be a positive number".
Result<Topology> ParseTopologyToml(std::string_view text, std::string_view origin);

// A built-in name, or a path to a .toml file (anything with '/' or ".toml").
Result<Topology> LoadTopology(std::string_view name_or_path);

std::vector<std::string> BuiltinTopologyNames();

}  // namespace braid
