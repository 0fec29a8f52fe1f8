// What `run` and `tune` share under mpirun: the wait limit and the checks
// that depend on the job (its processes against --tp and --backend).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "argument_hash.h"
#include "braid/cuda_backend.h"
#include "braid/launcher.h"
#include "braid/status.h"

namespace braid::cli {

// --timeout under mpirun: how long a rank waits for a peer. Its own default
// (the cuda watchdog's is shorter): a slow collective step on a loaded host
// must not be mistaken for a hang.
inline constexpr double kMpiDefaultTimeoutS = 300;

// --timeout when given and valid, else kMpiDefaultTimeoutS (an invalid
// value is refused by CheckMpiTimeout, once the launcher is up to say so once).
double MpiTimeout(const CudaBackendOptions& cuda, const CLI::Option* timeout_option);
Status CheckMpiTimeout(const CudaBackendOptions& cuda);

// `tp` against the job's processes: as many as --tp, on --backend cpu (or
// cuda, one process per GPU, where the command runs it: `run`, not `tune`).
// `ranks_flag` names the flag that set the rank count (--dp for a DP op).
Status CheckJobShape(const Launcher& world, const std::string& backend, int tp, bool cuda_allowed,
                     const std::string& ranks_flag = "--tp");

// "rank R: message", unless the message names its rank already; fields
// worded as flags (FlagWorded).
std::string RankPrefixed(const Launcher& world, const Status& s);

inline constexpr const char* kArgumentsDiffer =
    "arguments differ from rank 0's; mpirun must start every rank with the same braid arguments";

}  // namespace braid::cli
