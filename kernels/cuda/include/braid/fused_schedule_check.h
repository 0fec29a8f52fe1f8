// The proof that a fused schedule is safe, in the manner of plan_check.h:
// run over every rank's tables together, it checks
//  1. structure: CTA ranges cover the tasks, comm CTAs only move data and
//     compute CTAs only compute, every wait names a flag that exists;
//  2. flags: every flag of every rank is set by exactly one task (so every
//     awaited flag is set by some CTA, and never twice in one epoch);
//  3. no deadlock: program order within a CTA plus "setter before waiter"
//     has a topological order. Flags only ever rise, so a CTA that can run
//     stays able to: a complete greedy run shows that every interleaving of
//     the (co-resident) CTAs completes;
//  4. data: every input a task reads (a pulled row of A, a peer's partial
//     tile) is written by a task that happens-before it (program order and
//     flag edges, transitively), and sources are the ranks' own inputs;
//  5. outputs: every output element (ag_gemm: c; gemm_rs: each partial and
//     the reduced block) is written by exactly one task, and every reduce
//     sums every rank.
// Errors name the rank, CTA and task.
#pragma once

#include <vector>

#include "braid/fused_schedule.h"

namespace braid::cuda::fused {

Status CheckFusedSchedule(const FusedShape& s, const std::vector<RankTables>& ranks);

}  // namespace braid::cuda::fused
