// The small transformer block the block-input and training-verify tests share,
// and their plan and op lookups.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <utility>

#include "braid/layer_workload.h"
#include "braid/planner.h"
#include "cpu_test_util.h"

namespace braid::testing {

// Divisible by P = 2, 3 and 4 (heads, kv_heads, ffn and seq·batch).
inline ModelSpec BlockModel(bool gated = true) {
  ModelSpec m;
  m.name = "block";
  m.hidden = 48;
  m.heads = 12;
  m.kv_heads = 12;
  m.head_dim = 4;
  m.ffn = 96;
  m.gated_mlp = gated;
  return m;
}

// The block's plan at seq 24, batch 1, fp32; an empty plan (and a test
// failure) when it cannot be built.
inline Plan MustBlockPlan(const ModelSpec& m, Phase phase, int p, Algorithm algo, bool sp = true, int chunks = 1) {
  auto lw = MakeLayerWorkload(m, 24, 1, phase, p, DType::kFp32, sp);
  EXPECT_TRUE(lw.ok()) << lw.status().message();
  if (!lw.ok()) return Plan();
  auto plan = BuildLayerPlan(*lw, OverlapConfigOf(algo, chunks, 2));
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? std::move(plan).value() : Plan();
}

// The index of op `name`; a test failure and 0 (an index callers may still
// use safely) when the plan has none.
inline int OpIndex(const Plan& plan, std::string_view name) {
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (plan.ops[i].name == name) return int(i);
  }
  ADD_FAILURE() << "no op " << name;
  return 0;
}

}  // namespace braid::testing
