// Tuning with ranks as MPI processes (`mpirun -np P braid tune`): rank 0
// runs the session (RunTuning, braid/tune.h) on a LeaderBackend, which
// announces every run to the other ranks before making it; the other ranks
// make the same runs in FollowRuns until rank 0 says the job is finished.
// The inner backend's runs are collective (CpuProcessBackend), so every
// rank takes part in each. Only rank 0 touches the store and the preset
// file: trials are durable there, and a killed job resumes from them.
//
// Every wait is bounded: announcements travel by Launcher::Broadcast,
// which gives up after the launcher's timeout.
#pragma once

#include <string_view>

#include "braid/backend.h"
#include "braid/launcher.h"
#include "braid/status.h"

namespace braid {

// Rank 0's backend: announces each run, then makes it on `inner`.
class LeaderBackend : public Backend {
 public:
  // `launcher` and `inner` outlive it.
  LeaderBackend(Launcher& launcher, Backend& inner) : launcher_(launcher), inner_(inner) {}

  std::string_view name() const override { return inner_.name(); }
  Result<RunOutput> Run(const Plan& plan, const RunOptions& options) override;

  // Tells the other ranks to stop following and exit with `exit_code`.
  // Call once, at the end, unless broken().
  Status Finish(int exit_code);

  // The first failure that left the ranks out of step (a run that failed
  // on some rank for a reason they did not all agree on, or an
  // announcement that did not reach them). Then the job must end
  // (AbortJob): the others may be waiting inside a run.
  const Status& broken() const { return broken_; }

 private:
  Launcher& launcher_;
  Backend& inner_;
  Status broken_;
};

// Ranks other than 0: makes each run rank 0 announces on `inner`, until
// rank 0 finishes; returns the exit code it sent. Bad input every rank
// agreed on (a run's checks) does not stop it: rank 0 saw the same. Any
// other failure is returned, and the job must end (AbortJob).
Result<int> FollowRuns(Launcher& launcher, Backend& inner);

}  // namespace braid
