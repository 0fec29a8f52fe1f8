// A block's time on the sim backend, as `braid run --model ... --phase ...`
// would print it (the worst rank's p50 makespan): what `presets export-te
// --nearest` prints for the file it wrote beside the time that was tuned.
#pragma once

#include <string>

#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/run_record.h"
#include "braid/status.h"

namespace braid {

// Every GEMM of `lw` at its own config (LayerOp::config; unset ones serial,
// or derived in a train step), one timed iteration on the sim backend over
// `topology` (a built-in name or a file). Nothing is stored.
Result<double> SimulateBlockNs(const LayerWorkload& lw, const std::string& topology);

// The same run's record (per-op figures in its layer note), with `config`
// the run's config (what ops without their own take).
Result<RunRecord> SimulateBlockRun(const LayerWorkload& lw, const OverlapConfig& config, const std::string& topology);

}  // namespace braid
