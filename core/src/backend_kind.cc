#include "braid/backend_kind.h"

#include "braid/name_table.h"

namespace braid {

namespace {

constexpr NameTable<BackendKind, 3> kBackendKindNames{{
    {BackendKind::kSim, "sim"},
    {BackendKind::kCpu, "cpu"},
    {BackendKind::kCuda, "cuda"},
}};
static_assert(IsOneToOne(kBackendKindNames));

}  // namespace

std::string_view BackendKindName(BackendKind kind) { return NameIn(kBackendKindNames, kind); }

std::optional<BackendKind> BackendKindNamed(std::string_view name) { return ValueNamed(kBackendKindNames, name); }

Result<BackendKind> ParseBackendKind(std::string_view name) { return ParseNamed(kBackendKindNames, "backend", name); }

}  // namespace braid
