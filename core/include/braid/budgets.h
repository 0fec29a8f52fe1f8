// Every bound on what one request may make Braid allocate or spend, in one
// place: a `run`, a `tune`, a Python call or an import is checked against
// these before anything is allocated or written, and refused with one line
// naming the bound (the checks live beside what they check: Workload and
// LayerWorkload validation, pipeline/plan_size.h, run_options_check.h,
// tune_session.cc, the importers). Each bound is far above any real
// request and low enough that the request fits in this machine's memory
// and time (a 2-core, 24 GiB box refuses each in well under a second).
#pragma once

#include <cstddef>
#include <cstdint>

namespace braid {

// ---- Workloads: sizes that every count and time is derived from ----

// The most tokens (seq · batch) a block may hold: 2^40, beyond any run, and
// small enough that every size and FLOP count derived from it is checked
// by Workload::Validate rather than wrapping first.
inline constexpr int64_t kMaxLayerTokens = int64_t(1) << 40;

// The largest GEMM a run may model: event times are int64 nanoseconds, and
// every backend moves or computes at least one byte or FLOP per ns, so a
// workload within these limits cannot overflow them.
inline constexpr double kMaxWorkloadFlops = 4611686018427387904.0;  // 2^62
inline constexpr double kMaxWorkloadBytes = 4611686018427387904.0;  // 2^62, per matrix

// ---- Runs: plans, events, iterations ----

// Measured with /usr/bin/time on sim runs of an 8-rank ring (braid run
// --no-db): about 500 bytes per plan step (the step, its dependencies, the
// backend's schedule of it) and 120 per recorded event, held until the run
// is stored. Three large runs came within +1 % to +9 % of their peak.
inline constexpr int64_t kPlanBytesPerStep = 500;
inline constexpr int64_t kEventBytes = 120;
// Steps a plan may have (about 2.5 GB), and events a run may record (one
// per step per timed iteration, about 2.4 GB).
inline constexpr int64_t kMaxPlanSteps = 5'000'000;
inline constexpr int64_t kMaxRunEvents = 20'000'000;

// The most timed (or warm-up) iterations of one run.
inline constexpr int kMaxRunIterations = 1000000;
// The most timed (or warm-up) iterations of one tuning trial: a tuner
// compares medians, which settle within a few hundred; a session measures
// many trials, so `run`'s bound would let one tune hold millions of
// iterations' events.
inline constexpr int kMaxTrialIterations = 10000;
// The most layers a training step may stack (tune --phase train).
inline constexpr int kMaxStepLayers = 100000;

// ---- Files a user hands Braid ----

// Text data files (TOML, CSV): far above any real one.
inline constexpr int64_t kMaxDataFileBytes = int64_t(256) << 20;
// A TransformerEngine ub_cfgs YAML (a few dozen keys).
inline constexpr int64_t kMaxUbCfgsBytes = int64_t(1) << 20;

// ---- Traces (the importers) ----

// The most a trace may hold, as read or once inflated: a small .gz that
// inflates to gigabytes is refused when it passes this, not after.
inline constexpr size_t kMaxTraceBytes = size_t(8) << 30;
// What a gzip of `gz_bytes` may inflate to: kMaxInflateRatio times its
// size, at least kMinInflateAllowance. Kineto JSON compresses 10 to 20
// times; a run of spaces or zeros compresses about 1000 times, which took
// 187 s and 4.2 GB to refuse at kMaxTraceBytes.
inline constexpr size_t kMaxInflateRatio = 64;
inline constexpr size_t kMinInflateAllowance = size_t(64) << 20;
// The most a part of a Kineto file may reach past its size to find an
// event boundary: a trace's events are at most kilobytes, so a longer
// stretch (padding, one giant string) sends the file to a whole read, and
// a gzip window counts the rest rather than holding it.
inline constexpr size_t kMaxPartSpan = size_t(32) << 20;
// The most files one import reads: a 64-rank job is 64; a directory of
// thousands is likely the wrong one, and each file costs a worker's memory.
inline constexpr size_t kMaxTraceFiles = 4096;
// The most ranks a job may have, and so the highest rank number an import
// takes (Kineto's distributedInfo, an Nsight Systems deviceId): beyond any
// GPU cluster, and what keeps the figures' per-rank tables (sized by the
// highest rank) within tens of MB: a rank of 2^24 took 6.5 GB and 22 s.
inline constexpr int kMaxImportRanks = 1 << 17;
// The most of a name (kernel, range, op) an event keeps: long C++ template
// names fit; a 20 MB name used by 400 rows would otherwise be kept 400
// times (8 GB). A longer one keeps its start and says so (KeptName).
inline constexpr size_t kMaxEventNameBytes = 8192;
// The most of a PyTorch op's Input Dims text kept in its marker's name.
inline constexpr size_t kMaxInputDimsText = 512;

// ---- Messages ----

// The most of one error line: a path or name longer than this is cut, so
// that a message stays readable (cli_exit.h).
inline constexpr size_t kMaxMessageBytes = 2000;

}  // namespace braid
