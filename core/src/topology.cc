#include "braid/topology.h"

#include "braid/name_table.h"

namespace braid {

namespace {

constexpr NameTable<LinkKind, 6> kLinkKindNames{{
    {LinkKind::kNvSwitch, "nvswitch"},
    {LinkKind::kNvLink, "nvlink"},
    {LinkKind::kPcie, "pcie"},
    {LinkKind::kInfiniBand, "infiniband"},
    {LinkKind::kRoce, "roce"},
    {LinkKind::kEthernet, "ethernet"},
}};
static_assert(IsOneToOne(kLinkKindNames));

}  // namespace

std::string_view LinkKindName(LinkKind k) { return NameIn(kLinkKindNames, k); }

Result<LinkKind> ParseLinkKind(std::string_view name) { return ParseNamed(kLinkKindNames, "link kind", name); }

Status Topology::CheckFits(int tp) const {
  if (tp > total_gpus()) {
    return Status::Invalid("`tp` " + std::to_string(tp) + " needs more GPUs than topology '" + name + "' has (" +
                           std::to_string(total_gpus()) + ")");
  }
  return Status::Ok();
}

}  // namespace braid
