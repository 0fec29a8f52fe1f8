// Tuning the data-parallel side of a training step (braid/train_step.h): the
// bucket size, how many layers' gradients are decomposed into their wgrad
// GEMMs and with which plan, and the parameter gathers' prefetch depth, for
// one block shape, DP size and ZeRO stage, on the sim; beside Megatron-LM's
// defaults (--overlap-grad-reduce with its default bucket, prefetch 1).
// Each candidate is a whole step (SimulateTrainStep over one block run), so
// the search is cheap: the block is simulated once.
#pragma once

#include <string>
#include <vector>

#include "braid/run_record.h"
#include "braid/status.h"
#include "braid/train_step.h"

namespace braid {

struct DpTuneResult {
  DpSetup best;
  TrainStepFigures best_figures;
  DpSetup megatron;  // Megatron-LM's defaults for this DP size and stage
  TrainStepFigures megatron_figures;
  int candidates = 0;
  std::vector<std::pair<DpSetup, double>> ranked;  // the fastest few, step_ns
};

// The setups searched from `base` (its dp, zero and comm_sms kept: a memory
// and placement choice, not a speed knob): serial; bucketed at Megatron's
// default and at 1/4 .. 8× it, and at one layer's parameters; decomposed
// for the last 1, 2, 4 and all layers with ring, bidir_ring and direct
// (direct only for reduce-scatters) at 1 and 2 chunks; prefetch 1 and 2
// with ZeRO; the DP collectives' SMs (NCCL channels) at base's, 4, 8 and
// 16 for buckets. Buckets beyond the blocks' parameters are left out.
std::vector<DpSetup> DpCandidates(const DpSetup& base, int64_t params_per_layer, int layers);

// Every candidate's step on `block_run` (a sim run of request.block), the
// fastest first; ties keep the simpler setup (the candidates' order), and
// Megatron's defaults stay the answer unless the fastest beats them by more
// than 0.1 %.
Result<DpTuneResult> TuneDpStep(const TrainStepRequest& request, const RunRecord& block_run);

// The Megatron-LM arguments that run `setup` ("--overlap-grad-reduce
// --ddp-bucket-size 20000000 ...", the DP group's NCCL CTAs through
// --nccl-communicator-config-path's `dp: {max_ctas, min_ctas}`), and what
// it cannot express (a decomposed gradient, prefetch beyond one bucket, ZeRO-3)
// in `missing`.
std::string MegatronDpArgs(const DpSetup& setup, std::string* missing);

}  // namespace braid
