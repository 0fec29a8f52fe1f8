#include "braid/comm_sms_effect.h"

namespace braid {

bool CommSmsTakeEffect(const OverlapConfig& c, Op op) {
  switch (c.algorithm) {
    case Algorithm::kFused:
      return true;
    case Algorithm::kSerial:  // its collectives run alone, as fast as their SMs move them
    case Algorithm::kChunked:
    case Algorithm::kRing:
    case Algorithm::kBidirRing:
    case Algorithm::kDirect:
    case Algorithm::kIso:
    case Algorithm::kBulk:      // its collectives run beside the other GEMM
    case Algorithm::kExternal:  // its dgrad's ring does
      break;
    case Algorithm::kA2a:  // its transfers only move data; its adds run on the compute lane
    case Algorithm::kA2aDirect:
      return c.sm_margin || c.comm_engine == CommEngine::kSm;
  }
  // With a margin the GEMM gives up comm_sms SMs whatever the engine.
  return c.sm_margin || c.comm_engine == CommEngine::kSm || op != Op::kAgGemm;
}

}  // namespace braid
