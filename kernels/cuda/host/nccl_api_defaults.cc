// NcclApi's defaults for the symmetric-memory calls: an implementation
// without them says which call is missing.
#include "braid/nccl_api.h"

namespace braid::cuda {

namespace {
Status Missing(const char* call) {
  return Status::Unavailable(std::string(call) + " is not available in this NcclApi");
}
}  // namespace

Result<DevPtr> NcclApi::MemAlloc(size_t) { return Missing("ncclMemAlloc"); }
Status NcclApi::MemFree(DevPtr) { return Missing("ncclMemFree"); }
Result<NcclWindow> NcclApi::WindowRegister(NcclComm, DevPtr, size_t) { return Missing("ncclCommWindowRegister"); }
Status NcclApi::WindowDeregister(NcclComm, NcclWindow) { return Missing("ncclCommWindowDeregister"); }
Result<std::vector<DevPtr>> NcclApi::WindowPeerPointers(NcclWindow, int) { return Missing("ncclGetLsaPointer"); }

}  // namespace braid::cuda
