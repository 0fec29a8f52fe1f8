// NcclApi forwarded to NCCL. Errors carry ncclGetErrorString and, when NCCL
// has one, ncclGetLastError's detail.
#include <nccl.h>

#include <cstring>

#include "cuda_check.h"
#include "real/nccl_window_kernel.h"
#include "real/real_seams.h"
#include "real/runtime_stream.h"

#define BRAID_NCCL_STATUS(call)                                                                        \
  ([&]() -> ::braid::Status {                                                                          \
    const ncclResult_t braid_r_ = (call);                                                              \
    if (braid_r_ == ncclSuccess || braid_r_ == ncclInProgress) return ::braid::Status::Ok();           \
    return ::braid::Status::Internal(std::string(#call) + " failed: " + ncclGetErrorString(braid_r_) + \
                                     " (" BRAID_SOURCE_FILE ":" + std::to_string(__LINE__) + ")");     \
  }())

namespace braid::cuda {

namespace {

ncclComm_t C(NcclComm c) { return reinterpret_cast<ncclComm_t>(c); }
// ncclFloat8e4m3 / ncclFloat8e5m2 came with NCCL 2.24 (sums of them need sm_90).
static_assert(NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0), "FP8 transfers need NCCL 2.24 or newer");
ncclDataType_t T(DType d) {
  switch (d) {
    case DType::kFp32:
      return ncclFloat32;
    case DType::kFp16:
      return ncclFloat16;
    case DType::kFp8E4m3:
      return ncclFloat8e4m3;
    case DType::kFp8E5m2:
      return ncclFloat8e5m2;
    case DType::kBf16:
      break;
  }
  return ncclBfloat16;
}

class RealNccl : public NcclApi {
 public:
  Result<NcclUniqueId> GetUniqueId() override {
    ncclUniqueId id;
    BRAID_RETURN_IF_ERROR(BRAID_NCCL_STATUS(ncclGetUniqueId(&id)));
    static_assert(sizeof(id) == sizeof(NcclUniqueId), "ncclUniqueId is 128 bytes");
    NcclUniqueId out;
    std::memcpy(out.data(), &id, out.size());
    return out;
  }
  Result<NcclComm> CommInitRank(int nranks, const NcclUniqueId& uid, int rank, const NcclCommConfig& c) override {
    ncclUniqueId id;
    std::memcpy(&id, uid.data(), sizeof id);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    if (c.max_ctas > 0) {
      config.minCTAs = c.min_ctas;
      config.maxCTAs = c.max_ctas;
    }
    ncclComm_t comm = nullptr;
    BRAID_RETURN_IF_ERROR(BRAID_NCCL_STATUS(ncclCommInitRankConfig(&comm, nranks, id, rank, &config)));
    return reinterpret_cast<NcclComm>(comm);
  }
  Status CommDestroy(NcclComm c) override { return BRAID_NCCL_STATUS(ncclCommDestroy(C(c))); }
  Status CommAbort(NcclComm c) override { return BRAID_NCCL_STATUS(ncclCommAbort(C(c))); }
  Status GroupStart() override { return BRAID_NCCL_STATUS(ncclGroupStart()); }
  Status GroupEnd() override { return BRAID_NCCL_STATUS(ncclGroupEnd()); }
  Status Send(DevPtr buf, size_t count, DType d, int peer, NcclComm c, GpuStream s) override {
    return BRAID_NCCL_STATUS(ncclSend(buf, count, T(d), peer, C(c), RuntimeStream(s)));
  }
  Status Recv(DevPtr buf, size_t count, DType d, int peer, NcclComm c, GpuStream s) override {
    return BRAID_NCCL_STATUS(ncclRecv(buf, count, T(d), peer, C(c), RuntimeStream(s)));
  }
  Status Collective(CollectiveKind kind, DevPtr send, DevPtr recv, size_t count, DType d, NcclComm c,
                    GpuStream s) override {
    switch (kind) {
      case CollectiveKind::kAllGather:
        return BRAID_NCCL_STATUS(ncclAllGather(send, recv, count, T(d), C(c), RuntimeStream(s)));
      case CollectiveKind::kReduceScatter:
        return BRAID_NCCL_STATUS(ncclReduceScatter(send, recv, count, T(d), ncclSum, C(c), RuntimeStream(s)));
      case CollectiveKind::kAllReduce:
        return BRAID_NCCL_STATUS(ncclAllReduce(send, recv, count, T(d), ncclSum, C(c), RuntimeStream(s)));
    }
    return Status::Internal("unknown collective");
  }
  Result<DevPtr> MemAlloc(size_t bytes) override {
    void* p = nullptr;
    BRAID_RETURN_IF_ERROR(BRAID_NCCL_STATUS(ncclMemAlloc(&p, bytes)));
    return p;
  }
  Status MemFree(DevPtr p) override { return BRAID_NCCL_STATUS(ncclMemFree(p)); }
  Result<NcclWindow> WindowRegister(NcclComm c, DevPtr buf, size_t bytes) override {
    ncclWindow_t w = nullptr;
    BRAID_RETURN_IF_ERROR(BRAID_NCCL_STATUS(ncclCommWindowRegister(C(c), buf, bytes, &w, NCCL_WIN_COLL_SYMMETRIC)));
    return reinterpret_cast<NcclWindow>(w);
  }
  Status WindowDeregister(NcclComm c, NcclWindow w) override {
    return BRAID_NCCL_STATUS(ncclCommWindowDeregister(C(c), reinterpret_cast<ncclWindow_t>(w)));
  }
  Result<std::vector<DevPtr>> WindowPeerPointers(NcclWindow w, int nranks) override {
    std::vector<DevPtr> out(size_t(nranks), nullptr);
    BRAID_RETURN_IF_ERROR(BRAID_CUDA_STATUS(FetchWindowPeerPointers(w, nranks, out.data())));
    return out;
  }
};

}  // namespace

std::shared_ptr<NcclApi> MakeRealNccl() { return std::make_shared<RealNccl>(); }

}  // namespace braid::cuda
