// NVTX ranges around executed steps. With NVTX 3 headers present a range
// costs a few nanoseconds when no tool (Nsight Systems) is attached; without
// them it compiles to nothing.
#pragma once

#if defined(BRAID_HAVE_NVTX3)
#include <nvtx3/nvToolsExt.h>
#endif

namespace braid {

class NvtxRange {
 public:
#if defined(BRAID_HAVE_NVTX3)
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
#else
  explicit NvtxRange(const char* /*name*/) {}
#endif
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace braid
