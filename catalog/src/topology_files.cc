#include "braid/topology_files.h"

#include "builtin_topologies.h"

namespace braid {

std::vector<std::string> BuiltinTopologyNames() { return NamesOf(kBuiltinTopologies); }

Result<Topology> LoadTopology(std::string_view name_or_path) {
  auto file = FindDataFile(name_or_path, kBuiltinTopologies, "topology");
  if (!file.ok()) return file.status();
  return ParseTopologyToml(file->text, file->origin);
}

}  // namespace braid
