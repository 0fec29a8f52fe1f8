// What `run` and `tune` share as front ends: the backend's arguments, where
// the command runs (in this process, or as one rank of an mpirun job) and
// how an mpirun job starts (the launcher with the job's wait limit, then
// every rank's arguments compared by their hash, argument_hash.h).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "braid/backend.h"
#include "braid/cpu_backend.h"
#include "braid/cuda_backend.h"
#include "braid/launcher.h"
#include "braid/sim_backend.h"
#include "braid/status.h"

namespace braid::cli {

// The flags that pick and shape the backend (their options are added by
// each command, in its own help order).
struct BackendArgs {
  std::string backend = "sim";
  double link_gbps = 0;
  double link_latency_us = 0;
  CudaBackendOptions cuda;                // --loopback, --timeout, --tf32
  CLI::Option* timeout_option = nullptr;  // given or not: under mpirun the default is 300 s
};

// The cpu backend's options (CpuOptionsOf in backend_choice.h).
CpuBackendOptions CpuOptionsOf(const BackendArgs& a);
// --timeout given to a backend without a watchdog (CheckTimeoutApplies).
Status CheckTimeoutApplies(const BackendArgs& a);
// The backend in this process, its sim on `hw`.
Result<std::unique_ptr<Backend>> MakeBackend(const BackendArgs& a, const SimHardware& hw);
// How long a rank of an mpirun job waits for a peer (MpiTimeout).
double MpiTimeout(const BackendArgs& a);

// The start of an mpirun job: `world` is up and `checked` says whether
// every rank has rank 0's arguments (`arguments_hash`), a status the
// command agrees on (AgreeOnStatus) with its own checks. A launcher that
// cannot start is the error.
struct MpiJobStart {
  std::unique_ptr<Launcher> world;
  Status checked;
};
Result<MpiJobStart> StartMpiJob(const BackendArgs& a, uint64_t arguments_hash);

// `under_mpi` when mpirun started this process, else `in_process`.
int DispatchCommand(const std::function<int()>& in_process, const std::function<int()>& under_mpi);

}  // namespace braid::cli
