// A topology: which GPUs, how many per node, and the links between them.
// Topologies are data files (presets/topologies/*.toml, read by the presets
// module); this is the in-memory form every module shares.
#pragma once

#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid {

enum class LinkKind { kNvSwitch, kNvLink, kPcie, kInfiniBand, kRoce, kEthernet };

std::string_view LinkKindName(LinkKind k);
Result<LinkKind> ParseLinkKind(std::string_view name);

struct Link {
  LinkKind kind = LinkKind::kNvSwitch;
  double bandwidth_gbs = 0;  // GB/s per direction, per GPU
  double latency_us = 0;     // one small message, end to end
  bool peer_to_peer = true;  // PCIe: direct GPU-to-GPU (false: through host memory)
  std::string source;        // where the numbers come from
};

struct Topology {
  std::string name;
  std::string gpu;
  int gpus_per_node = 1;
  int nodes = 1;
  Link intra;  // within a node
  Link inter;  // between nodes (unused when nodes == 1)

  int total_gpus() const { return gpus_per_node * nodes; }
  // A TP degree P uses the first P GPUs; it must fit.
  Status CheckFits(int tp) const;
};

}  // namespace braid
