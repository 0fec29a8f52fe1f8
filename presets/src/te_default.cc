#include "braid/te_default.h"

#include "braid/te_ub_cfgs.h"

namespace braid {

TeDefault TeDefaultConfig(const Workload& w) {
  TeDefault d;
  if (w.op == Op::kGemmAr) return d;  // serial
  // What TE runs for an fprop key of this collective when ub_cfgs leaves it
  // out: qkv_fprop's ring_exchange, proj_fprop's pipeline.
  const TeKey& key = *FindTeKey(w.op == Op::kAgGemm ? "qkv_fprop" : "proj_fprop");
  d.config = TeConfigOf(TeDefaultOptions(key, TeDefaultMethod(key), w.tp), w);
  if (Status s = d.config.Validate(w); !s.ok()) {
    d.note = "TE default not applicable (" + s.message() + "): serial instead";
    d.config = OverlapConfig{};
  }
  return d;
}

}  // namespace braid
