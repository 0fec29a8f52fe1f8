#include "run_inputs.h"

#include "block_inputs.h"
#include "fp8_inputs.h"

namespace braid::cpu {

RunInputs MakeRunInputs(const Plan& plan, uint64_t seed, bool block, const Fp8Scaling& scaling) {
  RunInputs in;
  const int ops = plan.op_count();
  for (int i = 0; i < ops; ++i) {
    if (plan.is_layer() && !plan.ops[size_t(i)].gemm) {
      in.a.emplace_back();
      in.b.emplace_back();
      continue;
    }
    const Workload& ow = plan.op_workload(i);
    in.a.push_back(RandomMatrix(ow.m, ow.k, seed, 2 * uint64_t(i)));
    in.b.push_back(RandomMatrix(ow.k, ow.n, seed, 2 * uint64_t(i) + 1));
  }
  if (block) ChainBlock(plan, in);
  // After the chain: each GEMM's own inputs are cast, as TE casts them.
  RoundInputsToFp8(plan.workload.dtype, in, scaling);
  return in;
}

}  // namespace braid::cpu
