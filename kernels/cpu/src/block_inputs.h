// The inputs of a layer plan as the tensors of ONE transformer block, so that
// each GEMM op's plain A·B is that op's product in one reference forward (and
// backward, in train plans) of the block, computed here in fp32 on the full
// unsharded tensors. Each rank still loads its input windows from these
// tensors: ops pass no data to each other at run time.
//
// Within a linear L (qkv, out_proj, fc1, fc2) of input X [T × in], weight
// W [in × out] and output gradient dY [T × out] (layer_workload.h):
//   fprop                      A = X,   B = W
//   dgrad                      A = dY,  B = Wᵀ
//   wgrad, column (qkv, fc1)   A = Xᵀ,  B = dY
//   wgrad, row (out_proj, fc2) A = dYᵀ, B = X
// Between linears, what Braid does not model as GEMMs (norms, residual adds,
// the activation: not at all; attention: as compute only) is linearized, or
// cut where it has no linear stand-in:
//   qkv.X        the block input x (random)
//   out_proj.X   random: attention's output (the chain is cut there)
//   fc1.X        x + out_proj's Y (the residual; the norm as identity)
//   fc2.X        fc1's Y, the activation as identity; a gated MLP
//                (fc1 N = 2·ffn) sums each rank's gate and up halves
//   fc2.dY       dOut (random)
//   fc1.dY       fc2's dX (a gated MLP: into both halves)
//   out_proj.dY  dOut + fc1's dX (the residual)
//   qkv.dY       random: attention.backward's output (cut again)
// An iso plan's sequence parts share part 0's weights and are each chained on
// their own token rows (every link is row-wise), x and attention's output
// being the part's own random rows. A link whose shapes do not match its ops'
// M, N, K is not made: those ops keep their random inputs.
#pragma once

#include <string>

#include "braid/plan.h"
#include "run_inputs.h"

namespace braid::cpu {

// Rewrites `in` (every GEMM op's random A and B, MakeRunInputs) into the
// block's tensors, the random ones serving as its free tensors (x, attention's
// output, weights, dOut, qkv.dY), and counts the links made between linears
// in in.forward_links and in.backward_links (each 0 to 2 per part).
// Deterministic for the same `in`.
void ChainBlock(const Plan& plan, RunInputs& in);

// The run note saying what --verify checked against; empty where no link was
// made (a single-op plan, or inputs made without `block`).
std::string BlockNote(const RunInputs& in);

// Bytes the chain holds beside the inputs at once, at most: a reference
// product and the tensor made from it (0 for a single-op plan).
double ChainBytes(const Plan& plan);

}  // namespace braid::cpu
