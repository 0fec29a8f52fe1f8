// The data-parallel side of a training step as a user asks for it: DP
// degree, ZeRO stage, schedule, bucket size, decomposition and SMs. Plain
// fields in core, so that what builds a request (a command's flags, a
// preset) needs no training-step library (braid/train_step.h runs it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "braid/data_parallel.h"
#include "braid/dp_schedule.h"
#include "braid/overlap_config.h"

namespace braid {

// Megatron-Core's bucket when --ddp-bucket-size is not given:
// max(40,000,000, 1,000,000 × dp) parameters (distributed_data_parallel.py).
int64_t MegatronDefaultBucketParams(int dp);

struct DpSetup {
  int dp = 1;
  ZeroStage zero = ZeroStage::kNone;
  DpSchedule schedule = DpSchedule::kBucketed;
  // Parameters a bucket holds before it closes; unset = MegatronDefaultBucketParams(dp).
  std::optional<int64_t> bucket_params;
  // decomposed: layers decomposed, counted from the last the backward
  // reaches (-1 = all), and the plan of each decomposed gradient (its
  // algorithm: ring, bidir_ring or direct; chunked or serial are allowed
  // and show what decomposing buys).
  int decomposed_layers = -1;
  OverlapConfig decomposition = [] {
    OverlapConfig c;
    c.algorithm = Algorithm::kRing;
    return c;
  }();
  int prefetch = 1;
  int comm_sms = 0;  // the DP collectives' SMs (0 = the topology's NCCL channels)

  std::string Describe() const;  // "dp=4 zero=1 bucketed bucket=40000000"
};

}  // namespace braid
