#include "braid/topology_files.h"

#include "builtin_topologies.h"

namespace braid {

std::vector<std::string> BuiltinTopologyNames() { return NamesOf(kBuiltinTopologies); }

Result<Topology> LoadTopology(std::string_view name_or_path) {
  BRAID_ASSIGN_OR_RETURN(auto file, FindDataFile(name_or_path, kBuiltinTopologies, "topology"));
  return ParseTopologyToml(file.text, file.origin);
}

}  // namespace braid
