// A whole training step of a model on a TP × DP grid, on the sim: the
// block's forward and backward (its TP plan, as `braid run --phase train`
// runs it) repeated over the model's layers, and the data-parallel
// collectives between them (core/include/braid/data_parallel.h for the ops,
// braid/dp_schedule.h for when they run). The figure users compare: step
// time, exposed communication, tokens per second and MFU.
//
// Where the numbers come from: the block's per-op times from a sim run of
// its plan on the grid's first TP GPUs; each DP collective's time from the
// sim's collective model on the DP group's own links (DpGroupTopology: rails
// shared by every column's group); the slowdown of compute beside a DP
// collective from the sim's GEMM-beside-held-SMs model; a decomposed
// (CommFuse) gradient from a sim run of its DP op's plan (the wgrad GEMM
// block by block, each block's partial sent to its owner) on the DP group,
// and with ZeRO a decomposed layer's forward gather likewise (its fprop
// multiplying each weight block as it lands).
// Not modelled: the embedding and output layer, the optimizer step,
// gradient accumulation over micro-batches, pipeline parallelism, TP and DP
// traffic sharing a NIC (TP stays inside an NVLink domain here).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/data_parallel.h"
#include "braid/dp_schedule.h"
#include "braid/dp_setup.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/run_record.h"
#include "braid/status.h"

namespace braid {

struct TrainStepRequest {
  LayerWorkload block;   // a train block, its GEMMs at their own configs (LayerOp::config)
  OverlapConfig config;  // the run's TP config
  std::string topology;  // built-in name or file: the whole grid's
  DpSetup dp;
  int layers = 0;  // 0 = the model's
};

struct TrainStepFigures {
  DpStepFigures schedule;  // the DP collectives against the blocks
  double block_ns = 0;     // one block, forward and backward
  double forward_ns = 0, backward_ns = 0;
  double tp_exposed_comm_ns = 0;  // one block's exposed TP communication
  double step_ns = 0;
  double tokens_per_s = 0;  // seq·batch·dp tokens a step
  double mfu = 0;           // the blocks' GEMM and attention FLOPs over step time × peak × GPUs
  double stretch = 1;       // compute beside a DP collective
  int64_t bucket_params = 0;
  int layers = 0;
  std::string dp_link;                                        // "infiniband, 1 rail of 50 GB/s a rank"
  std::vector<std::pair<std::string, double>> decomposed_ns;  // per DP op when decomposed: its plan's time
};

// Every check SimulateTrainStep makes before it simulates anything: the DP
// ops divide, the grid fits the topology, the setup's fields are in range.
Status CheckTrainStep(const TrainStepRequest& request);

// `block_run`: a stored or fresh sim run of request.block whose per-op
// figures to use (its layer note); null to simulate the block here.
// Invalid (naming the field: dp, zero, bucket_params, prefetch, ...) before
// anything is simulated.
Result<TrainStepFigures> SimulateTrainStep(const TrainStepRequest& request, const RunRecord* block_run = nullptr);

}  // namespace braid
