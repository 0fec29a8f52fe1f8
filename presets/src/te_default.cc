#include "braid/te_default.h"

namespace braid {

TeDefault TeDefaultConfig(const Workload& w) {
  TeDefault d;
  switch (w.op) {
    case Op::kAgGemm:
      d.config.algorithm = Algorithm::kRing;
      d.config.comm_engine = CommEngine::kCopyEngine;
      break;
    case Op::kGemmRs:
      d.config.algorithm = Algorithm::kChunked;
      d.config.chunks = 4;
      d.config.comm_sms = 16;
      break;
    case Op::kGemmAr:
      return d;  // serial
  }
  if (Status s = d.config.Validate(w); !s.ok()) {
    d.note = "TE default not applicable (" + s.message() + "): serial instead";
    d.config = OverlapConfig{};
  }
  return d;
}

}  // namespace braid
