#include "braid/topology_files.h"

#include <fstream>
#include <sstream>

#include "builtin_topologies.h"

namespace braid {

std::vector<std::string> BuiltinTopologyNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : kBuiltinTopologies) names.emplace_back(f.name);
  return names;
}

Result<Topology> LoadTopology(std::string_view name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string_view::npos ||
                       name_or_path.ends_with(".toml");
  if (!is_path) {
    for (const EmbeddedFile& f : kBuiltinTopologies) {
      if (f.name == name_or_path) return ParseTopologyToml(f.text, std::string(f.name) + ".toml");
    }
    std::string known;
    for (const std::string& n : BuiltinTopologyNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::NotFound("unknown topology '" + OneLine(name_or_path) + "' (known: " + known +
                            "; or give a path to a .toml file)");
  }
  std::ifstream in{std::string(name_or_path)};
  if (!in) return Status::NotFound("cannot read topology file '" + OneLine(name_or_path) + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParseTopologyToml(ss.str(), name_or_path);
}

}  // namespace braid
