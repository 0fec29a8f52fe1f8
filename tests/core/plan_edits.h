// Plans to break on purpose, for the plan checker's tests: a checked plan
// from the planner or a tiny one built by hand, and edits that keep step ids
// and dependencies consistent so that each test breaks exactly one thing.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "braid/plan.h"

// The status failed with a message containing `text`.
#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

namespace braid {

// The planner's plan for the workload (checked; an empty plan after a failed expectation).
Plan MustBuild(Op op, int64_t m, int64_t n, int64_t k, int p, Algorithm algo, int chunks = 1, int lanes = 1);

// First step on the rank for which `pred` holds; -1 if none.
int Find(const RankPlan& rp, const std::function<bool(const Step&)>& pred);
// First step of `kind` (at `ring_step`, unless -2); -1 if none.
int FindKind(const RankPlan& rp, StepKind kind, int ring_step = -2);

// Removes a step; steps that depended on it inherit its dependencies.
void RemoveStep(RankPlan& rp, int id);
// Inserts `s` as step `pos`; later steps move up by one.
void InsertStep(RankPlan& rp, int pos, Step s);
// Swaps steps id and id+1 (id+1 must not depend on id).
void SwapWithNext(RankPlan& rp, int id);

// A one-rank plan by hand: C (4x4) = A (4x4) · B (4x4), gemm_rs with P=1, no steps.
Plan TinyPlan();
// A gemm step of TinyPlan computing all of C.
Step TinyGemm(int id, int lane, std::vector<int> deps);

}  // namespace braid
