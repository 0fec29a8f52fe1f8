// A TransformerEngine ub_cfgs against a trace (`braid report --by-gemm
// --ub-cfgs FILE.yaml`): per key, did the method it names show in the
// GEMMs the trace labels with that key?
//
// A GEMM's key is the row's (braid/gemm_keys.h): from TE's or Megatron's
// NVTX ranges, or from its shape when the caller mapped shapes
// (AssignKeysByShape). A trace with neither maps no GEMM, and every key
// says so.
//
// The method a key names shows as (braid/gemm_overlap.h): ring_exchange as
// ring, pipeline as pipeline, bulk as bulk; external (a row layer's wgrad,
// fed by its dgrad's ring) moves nothing of its own and shows as none.
// Findings: seen (the method, overlapped or partly), did_not_overlap (the
// method, but its comm ran beside no GEMM), other_method (a different
// method, or none: configured, not seen), not_in_trace (no GEMM with the
// key's label).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "braid/gemm_overlap.h"

namespace braid {

// What the ub_cfgs sets for one key, from the caller's reading of the file
// (the presets module's TE reader): the method by TE's name, and whether
// the file gave it (else TE's default).
struct UbKeyExpectation {
  std::string key;     // "qkv_fprop"
  std::string method;  // "ring_exchange" | "pipeline" | "bulk" | "external"
  bool from_file = false;
  int num_splits = 0;  // pipeline: the file's num_splits (0: not given)
};

enum class TeKeyFinding { kSeen, kDidNotOverlap, kOtherMethod, kNotInTrace };
std::string_view TeKeyFindingName(TeKeyFinding f);  // "seen", "did_not_overlap", "other_method", "not_in_trace"

struct TeKeyCheck {
  UbKeyExpectation config;
  int gemms = 0;                        // GEMMs labelled with the key, every rank and iteration
  std::map<std::string, int> methods;   // seen: OverlapMethodName -> GEMMs
  std::map<std::string, int> verdicts;  // GemmVerdictName -> GEMMs
  TeKeyFinding finding = TeKeyFinding::kNotInTrace;
  std::string note;  // e.g. a pipeline whose chunks are not its num_splits
};

// One check per config, in their order. `tp` (the trace's TP size, 0:
// unknown): TE's ring_exchange runs one GEMM chunk per rank, so a key on it
// whose GEMMs show another count says so in its note.
std::vector<TeKeyCheck> CheckTeUbCfgs(const GemmOverlapReport& report, const std::vector<UbKeyExpectation>& configs,
                                      int tp = 0);

}  // namespace braid
