#include "braid/tune_over_processes.h"

#include <string>

#include "run_announcement.h"

namespace braid {

using tuning::RunAnnouncement;

Result<RunOutput> LeaderBackend::Run(const Plan& plan, const RunOptions& options) {
  if (!broken_.ok()) return broken_;
  Result<tuning::PlanPart> part = tuning::PartOf(plan);
  if (!part.ok()) return Status::Internal(part.status().message());  // nothing announced: the ranks stay in step
  RunAnnouncement a;
  a.workload = plan.workload;
  a.config = plan.config;
  a.part = *part;
  a.fingerprint = tuning::PlanFingerprint(plan);
  a.options = options;
  Blob blob = tuning::EncodeAnnouncement(a);
  if (Status s = launcher_.Broadcast(blob); !s.ok()) {
    broken_ = s;
    return s;
  }
  Result<RunOutput> out = inner_.Run(plan, options);
  if (!out.ok() && !out.status().is_user_error()) broken_ = out.status();
  return out;
}

Status LeaderBackend::Finish(int exit_code) {
  if (!broken_.ok()) return broken_;
  RunAnnouncement a;
  a.finished = true;
  a.exit_code = exit_code;
  Blob blob = tuning::EncodeAnnouncement(a);
  return launcher_.Broadcast(blob);
}

Result<int> FollowRuns(Launcher& launcher, Backend& inner) {
  for (;;) {
    Blob blob;
    if (Status s = launcher.Broadcast(blob); !s.ok()) {
      return Status::Internal("rank " + std::to_string(launcher.rank()) +
                              " heard of no next run from rank 0: " + s.message());
    }
    Result<RunAnnouncement> a = tuning::DecodeAnnouncement(blob);
    if (!a.ok()) return Status::Internal(a.status().message());
    if (a->finished) return a->exit_code;
    Result<Plan> plan = tuning::RebuildPlan(a->workload, a->config, a->part);
    if (!plan.ok() || tuning::PlanFingerprint(*plan) != a->fingerprint) {
      return Status::Internal(
          "rank " + std::to_string(launcher.rank()) + " cannot rebuild rank 0's plan of " + a->workload.Describe() +
          ", " + a->config.Describe() +
          (plan.ok() ? " (a different plan: another braid build?)" : ": " + plan.status().message()));
    }
    Result<RunOutput> out = inner.Run(*plan, a->options);
    if (!out.ok() && !out.status().is_user_error()) return out.status();
  }
}

}  // namespace braid
