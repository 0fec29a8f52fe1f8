#include "braid/topology.h"

namespace braid {

std::string_view LinkKindName(LinkKind k) {
  switch (k) {
    case LinkKind::kNvSwitch:
      return "nvswitch";
    case LinkKind::kNvLink:
      return "nvlink";
    case LinkKind::kPcie:
      return "pcie";
    case LinkKind::kInfiniBand:
      return "infiniband";
    case LinkKind::kRoce:
      return "roce";
    case LinkKind::kEthernet:
      return "ethernet";
  }
  return "?";
}

Result<LinkKind> ParseLinkKind(std::string_view name) {
  if (name == "nvswitch") return LinkKind::kNvSwitch;
  if (name == "nvlink") return LinkKind::kNvLink;
  if (name == "pcie") return LinkKind::kPcie;
  if (name == "infiniband") return LinkKind::kInfiniBand;
  if (name == "roce") return LinkKind::kRoce;
  if (name == "ethernet") return LinkKind::kEthernet;
  return Status::Invalid("unknown link kind '" + OneLine(name) +
                         "' (known: nvswitch, nvlink, pcie, infiniband, roce, ethernet)");
}

Status Topology::CheckFits(int tp) const {
  if (tp > total_gpus()) {
    return Status::Invalid("`tp` " + std::to_string(tp) + " needs more GPUs than topology '" + name + "' has (" +
                           std::to_string(total_gpus()) + ")");
  }
  return Status::Ok();
}

}  // namespace braid
