// The processes of one job: who this process is, and the few collective
// calls a backend needs to start and to report (the cuda backend broadcasts
// a ncclUniqueId; the cpu backend gathers events to rank 0). Depends on no
// backend. Two implementations: one process (ranks are threads) and MPI
// (one rank per process, started by mpirun).
//
// Contract: every process calls the collective members (Broadcast, Gather,
// Barrier, MeasureClockOffsets) in the same order, from one thread at a
// time. No call waits unboundedly: a peer that does not take part within the
// launcher's timeout makes the call fail with a message naming the call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "braid/status.h"

namespace braid {

using Blob = std::vector<uint8_t>;

// Another rank's steady clock against rank 0's: t_rank0 ≈ t_rank − offset_ns,
// give or take uncertainty_ns (half the smallest ping-pong round trip).
struct ClockOffset {
  int64_t offset_ns = 0;
  int64_t uncertainty_ns = 0;
};

// Round trips per rank that the process backends measure clocks with.
constexpr int kClockRounds = 16;

// The run note that says how events were aligned to rank 0's clock: the
// largest offset and uncertainty over ranks; `how` (may be empty) is inserted
// after "rank 0's clock" to say which clocks were read.
std::string ClockAlignmentNote(const std::vector<ClockOffset>& offsets, int rounds, const std::string& how);

class Launcher {
 public:
  virtual ~Launcher() = default;

  virtual int world_size() const = 0;
  virtual int rank() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes on this host
  virtual std::string host_name() const = 0;
  bool is_root() const { return rank() == 0; }

  // On return every rank's `blob` holds rank 0's (at most 64 MiB).
  virtual Status Broadcast(Blob& blob) = 0;
  // Rank 0 receives every rank's blob in rank order; other ranks an empty list.
  virtual Result<std::vector<Blob>> Gather(const Blob& blob) = 0;
  virtual Status Barrier() = 0;
  // Rank 0 receives one offset per rank (its own is zero); others an empty list.
  // Ping-pong of `rounds` round trips per rank, keeping the shortest.
  virtual Result<std::vector<ClockOffset>> MeasureClockOffsets(int rounds) = 0;
  // Ends every process of the job with `exit_code`; `message` (one line,
  // may be empty) is printed first on stderr by this process.
  [[noreturn]] virtual void Abort(const std::string& message, int exit_code) = 0;
};

// Every rank passes its own status; all get the first failure in rank order
// (prefixed with "rank R: " when only some ranks failed), or Ok. Collective.
Status AgreeOnStatus(Launcher& launcher, const Status& mine);

// Ok when `value` (a hash of the command line, say) equals rank 0's; else
// Invalid(`differs`) on this rank. Collective; follow with AgreeOnStatus so
// that every rank learns which rank differs.
Status SameAsRank0(Launcher& launcher, uint64_t value, const std::string& differs);

// Ends the job after a failure seen by this rank, so that one message
// reaches the user: rank 0 aborts at once; rank r waits r × 0.5 s (at most
// 5 s) first, so that when rank 0 failed too, its message is the one printed.
[[noreturn]] void AbortJob(Launcher& launcher, const std::string& message, int exit_code);

// This process's rank as its launcher (mpirun, PMI) announced it in the
// environment, before MPI starts; 0 when not started by one.
int RankFromEnvironment();

// One process, world size 1.
std::unique_ptr<Launcher> MakeSingleProcessLauncher();

// True when this process was started by mpirun (or a PMI/PMIx launcher).
bool StartedByMpiLauncher();
// True when braid was built with MPI (BRAID_WITH_MPI).
bool MpiBuiltIn();

// Initialises MPI (thread-multiple) once per process; finalised when the
// launcher is destroyed. Collective calls give up after `timeout_s`.
// Unavailable when built without MPI.
Result<std::unique_ptr<Launcher>> MakeMpiLauncher(double timeout_s);

// MPI when started by mpirun (and built with it), else one process.
Result<std::unique_ptr<Launcher>> MakeLauncher(double timeout_s);

}  // namespace braid
