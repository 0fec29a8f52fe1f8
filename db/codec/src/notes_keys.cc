// The table of a run's notes keys (braid/notes_keys.h).
#include "braid/notes_keys.h"

#include <array>

namespace braid {

namespace {

constexpr std::string_view kRunPipeline = "run pipeline";
constexpr std::string_view kTrialRunner = "tuner";
constexpr std::string_view kImport = "braid import";

// One row per key, each object before its fields. docs/store-schema.md
// lists the same rows (tests/db/notes_keys_test.cc holds the two together).
constexpr std::array kKeys = {
    NoteKey{note::kComputeDtype, NoteType::kString, kRunPipeline,
            "what the backend computed in (the cpu backend: fp32)"},
    NoteKey{note::kNotes, NoteType::kStrings, kRunPipeline, "backend remarks, clock-offset uncertainty under MPI, ..."},
    NoteKey{note::kVerify, NoteType::kObjectOrNull, kRunPipeline, "the `--verify` check; null when it was not asked"},
    NoteKey{"verify.ok", NoteType::kBoolean, kRunPipeline, "every rank's result matched the reference"},
    NoteKey{"verify.max_rel_error", NoteType::kNumber, kRunPipeline, "the largest relative error found"},
    NoteKey{"verify.worst_rank", NoteType::kInteger, kRunPipeline, "the rank it was found on"},
    NoteKey{note::kSeed, NoteType::kInteger, kRunPipeline, "the input seed"},
    NoteKey{note::kLinkEmulation, NoteType::kObject, kRunPipeline, "the cpu backend's emulated link (`--link-gbps`)"},
    NoteKey{"link_emulation.gbps", NoteType::kNumber, kRunPipeline, "its bandwidth"},
    NoteKey{"link_emulation.latency_us", NoteType::kNumber, kRunPipeline, "its latency"},
    NoteKey{note::kLowerBound, NoteType::kObject, kRunPipeline, "the run's lower bound"},
    NoteKey{"lower_bound.compute_alone_ns", NoteType::kNumber, kRunPipeline, "the serial plan's compute alone"},
    NoteKey{"lower_bound.comm_alone_ns", NoteType::kNumber, kRunPipeline, "the serial plan's communication alone"},
    NoteKey{"lower_bound.lower_bound_ns", NoteType::kNumber, kRunPipeline, "the larger of the two"},
    NoteKey{note::kErrorBand, NoteType::kNumber, kRunPipeline,
            "sim runs: the makespan's expected relative error, from 0 to 1 (0.12: ±12 %)"},
    NoteKey{note::kErrorBandAssumed, NoteType::kBoolean, kRunPipeline,
            "sim runs: a regime the band weighs had no measured rows"},
    NoteKey{note::kLayer, NoteType::kObject, kRunPipeline, "`--model` runs: the layer note (below)"},
    NoteKey{note::kTuner, NoteType::kObject, kTrialRunner, "a trial's run: the trial it was measured for"},
    NoteKey{"tuner.session", NoteType::kInteger, kTrialRunner, "the tuning session's id"},
    NoteKey{"tuner.trial", NoteType::kString, kTrialRunner, "the trial key (`trials.trial_key`)"},
    NoteKey{"tuner.layer", NoteType::kString, kTrialRunner, "the target's layer (`llama3-70b/fc1`); empty for one op"},
    NoteKey{note::kFiles, NoteType::kStrings, kImport, "the trace files read"},
    NoteKey{note::kHta, NoteType::kObjects, kImport, "per rank, HolisticTraceAnalysis's figures"},
    NoteKey{"hta[].rank", NoteType::kInteger, kImport, "the rank"},
    NoteKey{"hta[].device", NoteType::kInteger, kImport, "its CUDA device, -1 when unknown"},
    NoteKey{"hta[].unit", NoteType::kString, kImport, "the unit of the three lengths: `us` (Kineto) or `ns` (nsys)"},
    NoteKey{"hta[].comm", NoteType::kInteger, kImport, "length of the union of communication kernels"},
    NoteKey{"hta[].compute", NoteType::kInteger, kImport, "length of the union of computation kernels"},
    NoteKey{"hta[].overlap", NoteType::kInteger, kImport, "length of their intersection"},
    NoteKey{"hta[].overlap_pct", NoteType::kNumber, kImport, "100 · overlap / comm"},
    NoteKey{"hta[].idle_pct", NoteType::kNumber, kImport, "100 · idle / span"},
    NoteKey{"hta[].compute_pct", NoteType::kNumber, kImport, "100 · compute / span"},
};

}  // namespace

std::string_view NoteTypeName(NoteType t) {
  switch (t) {
    case NoteType::kString:
      return "string";
    case NoteType::kInteger:
      return "integer";
    case NoteType::kNumber:
      return "number";
    case NoteType::kBoolean:
      return "boolean";
    case NoteType::kStrings:
      return "array of strings";
    case NoteType::kObject:
      return "object";
    case NoteType::kObjectOrNull:
      return "object or null";
    case NoteType::kObjects:
      return "array of objects";
  }
  return "?";
}

std::span<const NoteKey> NoteKeys() { return kKeys; }

}  // namespace braid
