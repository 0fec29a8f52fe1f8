#include "gemm/tma_encode.h"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "cuda_check.h"

namespace braid::cuda::gemm {

namespace {

struct EncodeEntry {
  PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  Status status;
};

const EncodeEntry& Entry() {
  static EncodeEntry entry;
  static std::once_flag once;
  std::call_once(once, [] {
    cudaDriverEntryPointQueryResult found{};
    entry.status = BRAID_CUDA_STATUS(cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", reinterpret_cast<void**>(&entry.fn), 12000, cudaEnableDefault, &found));
    if (entry.status.ok() && found != cudaDriverEntryPointSuccess)
      entry.status = Status::Unavailable("the CUDA driver has no cuTensorMapEncodeTiled");
  });
  return entry;
}

CUtensorMapSwizzle DriverSwizzle(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::k32B:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case TmaSwizzle::k64B:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case TmaSwizzle::k128B:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    case TmaSwizzle::kNone:
      break;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

}  // namespace

Status EncodeTensorMap(const TmaTensorMapParams& p, const void* base, DType dtype, CUtensorMap* map) {
  BRAID_RETURN_IF_ERROR(CheckTmaParams(p));
  BRAID_RETURN_IF_ERROR(CheckTmaAddress(p.what, reinterpret_cast<uint64_t>(base)));
  if (dtype != DType::kBf16 && dtype != DType::kFp16 && dtype != DType::kFp8E4m3)
    return Status::Invalid(std::string("TMA tensor map of ") + p.what + ": dtype must be bf16, fp16 or fp8_e4m3");
  // FP8 moves as bytes: TMA copies, it does not convert.
  const CUtensorMapDataType type = dtype == DType::kBf16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : dtype == DType::kFp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                           : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  const EncodeEntry& e = Entry();
  BRAID_RETURN_IF_ERROR(e.status);
  *map = CUtensorMap{};
  const cuuint64_t dims[2] = {p.dims[0], p.dims[1]};
  const cuuint64_t strides[1] = {p.stride_bytes[0]};
  const cuuint32_t box[2] = {p.box[0], p.box[1]};
  const cuuint32_t elem_strides[2] = {p.elem_strides[0], p.elem_strides[1]};
  const CUresult r = e.fn(map, type, cuuint32_t(p.rank), const_cast<void*>(base), dims, strides, box, elem_strides,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, DriverSwizzle(p.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::Internal(std::string("cuTensorMapEncodeTiled for ") + p.what + " failed: CUDA driver error " +
                            std::to_string(int(r)));
  return Status::Ok();
}

}  // namespace braid::cuda::gemm
