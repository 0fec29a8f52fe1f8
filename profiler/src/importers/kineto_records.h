// The parts of a Kineto (Chrome trace format) file the importer uses: the
// complete ("ph": "X") events that are GPU activity, CPU runtime calls,
// ProfilerStep ranges, GEMM ops or carry a correlation id, and
// distributedInfo.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/budgets.h"
#include "braid/status.h"
#include "file_bytes.h"

namespace braid::importers {

enum class KinetoCat {
  kKernel,    // "kernel"
  kMemcpy,    // "gpu_memcpy"
  kMemset,    // "gpu_memset"
  kRuntime,   // "cuda_runtime", "cuda_driver"
  kSync,      // "cuda_sync"
  kStep,      // a "ProfilerStep#N" range (any category but the GPU copy)
  kGpuRange,  // "gpu_user_annotation": a record_function range on the GPU timeline
  kGemmOp,    // "cpu_op" of a GEMM op (IsGemmCpuOpName), named with its Input Dims
  kOther,     // kept only for its correlation id
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
  int events_seen = 0;   // all of traceEvents, kept or not
  int parts = 0;         // how many parts ReadKinetoRecords read it in (1: whole)
  int parts_second = 0;  // of them, parsed on the parser's second thread
  std::optional<int> rank;
  std::optional<int> world;
};

// simdjson's parser, kept from file to file by a worker: a new one per file
// allocated and faulted in its index buffers afresh, and freed them after
// (a tenth of a 64-rank import's time went to those page faults and unmaps).
// `part_threads` 2: a file read in parts has its parts parsed on two
// threads, the caller's and one the parser keeps (started on first use),
// for a worker with a core to spare (one file on two cores). The records
// and errors are the same as with 1.
class KinetoParser {
 public:
  explicit KinetoParser(int part_threads = 1);
  ~KinetoParser();
  KinetoParser(const KinetoParser&) = delete;
  KinetoParser& operator=(const KinetoParser&) = delete;

 private:
  friend Status ReadKinetoRecords(const PaddedBytes& json, std::string_view label, KinetoRecords* out,
                                  KinetoParser* parser, size_t part_bytes);
  friend bool ReadKinetoRecordsInflating(std::string_view gz, std::string_view label, KinetoRecords* out,
                                         KinetoParser* parser, size_t part_bytes, size_t max_bytes, bool* too_big);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// How much of a trace one parse takes at a time: a file of at least twice
// this is read in parts of about this size (see kineto_json.cc), with the
// records and errors of a whole read. 0: always whole.
inline constexpr size_t kKinetoPartBytes = size_t(512) << 10;

// Appends to out->events (clear it first to reuse its buffer); `parser`
// given, its buffers are reused.
// @post on error, a one-line Status::Invalid starting with `label`.
Status ReadKinetoRecords(const PaddedBytes& json, std::string_view label, KinetoRecords* out,
                         KinetoParser* parser = nullptr, size_t part_bytes = kKinetoPartBytes);

// As ReadKinetoRecords in parts, for gzip bytes inflated a part at a time
// (GzipWindow), so that the whole JSON is never held. False when it could
// not (a build without ISA-L, corrupt or oversized gzip, a part refused,
// any problem in the trace): `out` is then as it
// came, and the caller inflates the file whole and reads that, which names
// any problem. True: `out` holds what ReadKinetoRecords gives.
// `too_big` (may be null) is set when it could not because the data
// inflates past min(max_bytes, InflateLimit(gz.size())): the caller then
// refuses it (InflateTooBig) without inflating it whole again.
bool ReadKinetoRecordsInflating(std::string_view gz, std::string_view label, KinetoRecords* out,
                                KinetoParser* parser = nullptr, size_t part_bytes = kKinetoPartBytes,
                                size_t max_bytes = kMaxTraceBytes, bool* too_big = nullptr);

}  // namespace braid::importers
