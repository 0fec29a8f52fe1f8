// The parts of a Kineto (Chrome trace format) file the importer uses: the
// complete ("ph": "X") events that are GPU activity, CPU runtime calls,
// ProfilerStep ranges or carry a correlation id, and distributedInfo.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"
#include "file_bytes.h"

namespace braid::importers {

enum class KinetoCat {
  kKernel,   // "kernel"
  kMemcpy,   // "gpu_memcpy"
  kMemset,   // "gpu_memset"
  kRuntime,  // "cuda_runtime", "cuda_driver"
  kSync,     // "cuda_sync"
  kStep,     // a "ProfilerStep#N" range (any category)
  kOther,    // kept only for its correlation id
};

struct KinetoRecord {
  KinetoCat cat = KinetoCat::kOther;
  std::string name;  // empty for kOther
  double ts = 0;     // µs; |ts| and |ts + dur| <= kMaxAbsUs
  double dur = 0;    // µs, >= 0
  int64_t stream = -1;
  int64_t correlation = -1;
  int64_t device = -1;
  int64_t bytes = 0;
  bool has_correlation = false;
};

struct KinetoRecords {
  std::vector<KinetoRecord> events;
  int events_seen = 0;  // all of traceEvents, kept or not
  std::optional<int> rank;
  std::optional<int> world;
};

// @post on error, a one-line Status::Invalid starting with `label`.
Status ReadKinetoRecords(const PaddedBytes& json, std::string_view label, KinetoRecords* out);

}  // namespace braid::importers
