#include "gemm/tile_config.h"

#include <string>

namespace braid::cuda::gemm {

const char* GemmArchName(GemmArch arch) { return arch == GemmArch::kSm90a ? "sm_90a" : "sm_80"; }

Result<GemmArch> ArchForCapability(int major, int minor) {
  if (major == 9 && minor == 0) return GemmArch::kSm90a;
  if (major == 8) return GemmArch::kSm80;
  return Status::Unavailable("the GEMM core has no kernel for compute capability " + std::to_string(major) + "." +
                             std::to_string(minor) + " (it is built for sm_80 and sm_90a)");
}

Status CheckSmemBudget(const TileConfig& c, int64_t limit) {
  const int64_t need = SmemBytes(c);
  if (need <= limit) return Status::Ok();
  return Status::Invalid(std::string("the ") + GemmArchName(c.arch) + " GEMM tile " + std::to_string(c.tile_m) + "x" +
                         std::to_string(c.tile_n) + "x" + std::to_string(c.tile_k) + " with " +
                         std::to_string(c.stages) + " stages needs " + std::to_string(need) +
                         " bytes of shared memory; the device allows " + std::to_string(limit) + " per block");
}

}  // namespace braid::cuda::gemm
