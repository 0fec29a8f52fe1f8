// A training step of a model's blocks on a data-parallel group: when each
// DP collective runs against the blocks' compute, and what it adds to the
// step. Pure scheduling math over figures the caller measured or simulated
// (tuner/train_step.h fills them from the sim), so it is tested by hand.
//
// The step is the forward of layers 1..L, then their backward L..1, each a
// compute segment of `forward_ns` / `backward_ns` (a block's time with its
// own TP communication, as a layer run measures it). One DP stream runs the
// DP collectives one at a time, first come first served, as NCCL runs the
// collectives of one communicator; while one runs, the blocks' compute runs
// `stretch` times slower (the SMs its kernels hold).
//   gradients  each linear's gradient is ready at a point of its layer's
//     backward (`grad_ready`, the fraction of the backward done). Bucketed
//     (Megatron's --overlap-grad-reduce, DDP's buckets): gradients fill
//     buckets in backward order; a bucket closes once it holds at least
//     `bucket_params` parameters (Megatron's rule) and its collective is
//     queued when its last gradient is ready; the last one closes with
//     whatever is left. Serial: one collective of everything after the
//     backward (no overlap). Decomposed layers (CommFuse): the gradient's
//     reduce-scatter is interleaved with its own wgrad GEMM, which takes
//     `decomposed_extra_ns` more per layer than the plain wgrad and leaves
//     no collective behind. The same n layers' forward gathers, at the
//     forward's start where nothing hides them, are decomposed into their
//     fprop GEMMs (each weight block multiplied as it lands) for
//     `decomposed_gather_extra_ns` more each, and leave no gather behind.
//   parameters (ZeRO): each layer's weights are gathered before its
//     forward (stage 1/2 after the optimizer, Megatron's
//     --overlap-param-gather; stage 3 every step) and, at stage 3, again
//     before its backward. With prefetch k the gather of layer l is queued
//     when the segment k before it starts (the first k at the step's start);
//     serial gathers each right before its segment. A segment waits for its
//     layer's gather.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "braid/status.h"

namespace braid {

enum class DpSchedule { kSerial, kBucketed, kDecomposed };

std::string_view DpScheduleName(DpSchedule s);  // "serial", "bucketed", "decomposed"
Result<DpSchedule> ParseDpSchedule(std::string_view name);

struct DpGradient {
  std::string linear;       // fc2, fc1, out_proj, qkv (backward order)
  double grad_ready = 1.0;  // fraction of the layer's backward done when it is ready, (0, 1]
  int64_t params = 0;
  int64_t bytes = 0;
};

struct DpStepInput {
  int layers = 1;
  double forward_ns = 0;              // one block's forward
  double backward_ns = 0;             // one block's backward
  std::vector<DpGradient> gradients;  // one block's, in backward order
  DpSchedule schedule = DpSchedule::kBucketed;
  int64_t bucket_params = 0;  // bucketed: a bucket closes at >= this many parameters (> 0)
  // Decomposed: how many of the layers the backward reaches last (layers
  // 1..n) are decomposed; the others are bucketed. -1: all.
  int decomposed_layers = -1;
  double decomposed_extra_ns = 0;         // per decomposed layer: its decomposed wgrads' time beyond the plain ones
  double decomposed_gather_extra_ns = 0;  // per decomposed layer with gathers: its decomposed fprops' beyond the plain
  // ZeRO parameter gathers: none when gather_bytes is 0.
  int64_t gather_bytes = 0;         // one layer's weights (all its linears)
  bool gather_in_backward = false;  // stage 3
  int prefetch = 1;                 // gathers queued ahead of their segment (>= 1; serial: 0)
  double stretch = 1.0;             // compute slowdown while a DP collective runs (>= 1)
  // The DP collective's time for `bytes` (gradients: reduce-scatter or
  // all-reduce of a bucket; gathers: all-gather of a layer's weights).
  std::function<double(int64_t bytes)> grad_collective_ns;
  std::function<double(int64_t bytes)> gather_collective_ns;
};

struct DpCollectiveSpan {
  std::string name;  // "grad bucket 3 (fc1 of layer 70 .. qkv of layer 69)", "gather layer 4 (forward)"
  int64_t bytes = 0;
  double queued_ns = 0, start_ns = 0, end_ns = 0;
};

struct DpStepFigures {
  double step_ns = 0;
  double compute_ns = 0;     // L·(forward + backward) with nothing of DP: the step without DP communication
  double dp_comm_ns = 0;     // the DP collectives' summed durations (decomposed ones: their extra time)
  double dp_exposed_ns = 0;  // step_ns − compute_ns: what DP communication adds to the step
  double tail_ns = 0;        // from the end of the last compute to the end of the step
  int grad_collectives = 0;  // buckets (or 1 when serial)
  int gather_collectives = 0;
  std::vector<DpCollectiveSpan> spans;  // in the order they ran
};

// Invalid, naming the field, for sizes or times out of range.
Result<DpStepFigures> ScheduleDpStep(const DpStepInput& in);

}  // namespace braid
