// What rank 0 of a tuning job tells the other ranks before each run
// (braid/tune_over_processes.h): the plan as the workload, config and part
// it was built from, with a fingerprint of the whole plan, and the run's
// options; or that the job is finished, with its exit code. A plan is sent
// by how it was made, not step by step: the followers rebuild it and check
// the fingerprint, so a plan they cannot rebuild is an error, never a
// different run.
#pragma once

#include <cstdint>
#include <string>

#include "braid/backend.h"
#include "braid/launcher.h"
#include "braid/plan.h"
#include "braid/status.h"

namespace braid::tuning {

// Which steps of the planner's plan a run keeps: all of them, or (the lower
// bound's single-part runs) its compute alone or its communication alone.
enum class PlanPart { kWhole, kComputeAlone, kCommAlone };

// BuildPlan(workload, config), cut to `part`.
Result<Plan> RebuildPlan(const Workload& w, const OverlapConfig& config, PlanPart part);

// Every field of every lane, buffer and step (FNV-1a): equal plans, equal
// fingerprints.
uint64_t PlanFingerprint(const Plan& plan);

// The part of the planner's plan `plan` is, or Invalid when it is none of
// them (a layer plan, a hand-made plan).
Result<PlanPart> PartOf(const Plan& plan);

struct RunAnnouncement {
  bool finished = false;  // true: no run; the job ends with `exit_code`
  int exit_code = 0;
  Workload workload;
  OverlapConfig config;
  PlanPart part = PlanPart::kWhole;
  uint64_t fingerprint = 0;
  RunOptions options;
};

Blob EncodeAnnouncement(const RunAnnouncement& a);
// Invalid for a blob that is not one (damaged, or another braid version).
Result<RunAnnouncement> DecodeAnnouncement(const Blob& blob);

}  // namespace braid::tuning
