// The knobs of one overlap plan and the rules that make a combination valid.
// An invalid combination is rejected with a message naming the knob and the
// rule; it is never run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

// kIso (layer workloads only, sequence parallelism off): the sequence is cut
// into `chunks` parts (`splits` weights allowed); each part runs the whole op
// chain, and part i+1's compute overlaps part i's all-reduces.
// kFused (ag_gemm, gemm_rs and layers of them): one persistent kernel per
// rank in which `comm_sms` SMs move tiles to peers and the rest compute GEMM
// tiles, with per-tile ready flags (no chunks: the tiles are the unit).
// comm_sms 0 = the backend default (sim: the topology's NCCL channel count);
// it must stay below the GPU's SM count. gemm_ar is refused.
// kBulk and kExternal (training layers only, the backward of a linear):
// bulk — a column-parallel dgrad's reduce-scatter runs beside its wgrad GEMM
// and the wgrad's all-gather beside the dgrad GEMM (two independent
// branches); external — a row-parallel wgrad's GEMM is fed slice by slice by
// its dgrad's ring exchange. TransformerEngine's `bulk` and `external`.
enum class Algorithm { kSerial, kChunked, kRing, kBidirRing, kIso, kFused, kBulk, kExternal };

enum class CommEngine { kSm, kCopyEngine };

std::string_view AlgorithmName(Algorithm a);
Result<Algorithm> ParseAlgorithm(std::string_view name);
std::string_view CommEngineName(CommEngine e);
Result<CommEngine> ParseCommEngine(std::string_view name);

struct OverlapConfig {
  Algorithm algorithm = Algorithm::kSerial;
  // chunked: number of data slices; ring / bidir_ring: sub-chunks per step;
  // iso: sequence parts.
  int chunks = 1;
  // Optional uneven split weights for `chunked` and `iso` (one per chunk, > 0). Empty
  // means even slices, which then must divide the rows exactly.
  std::vector<int> splits;
  int comm_lanes = 1;  // comm streams (lanes besides the compute lane)
  int comm_sms = 0;    // SMs / NCCL channels for comm; 0 = backend default
  CommEngine comm_engine = CommEngine::kSm;
  bool comm_high_priority = true;  // comm lanes get the higher stream priority

  // Checks the knobs against each other and against the workload's shapes.
  // iso is refused here: it applies to layer workloads only (BuildLayerPlan).
  Status Validate(const Workload& w) const;
  // The knobs that do not depend on a workload: chunks, streams, comm SMs.
  Status ValidateKnobs() const;
  std::string Describe() const;  // "ring chunks=2 streams=2"
};

// Parses "1,2,1" into weights; rejects empty entries and non-positive values.
Result<std::vector<int>> ParseSplits(std::string_view text);

}  // namespace braid
