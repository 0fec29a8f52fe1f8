// The Kineto importer's in-memory entry points (used by ImportKineto, the
// fuzzer and the benchmark).
#pragma once

#include <string_view>

#include "braid/status.h"
#include "braid/trace_import.h"
#include "file_bytes.h"
#include "kineto_records.h"

namespace braid::importers {

// Parses one Kineto trace held as JSON text. `label` names it in errors;
// `default_rank` / `default_world` apply when it has no distributedInfo.
Result<ImportedRank> ParseKinetoJson(const PaddedBytes& json, std::string_view label, int default_rank,
                                     int default_world);

// The threads a Kineto job of `files` files is read on: `requested` when
// above 0, else the machine's hardware threads up to kDefaultMaxWorkers; at
// most the files and 64.
inline constexpr unsigned kDefaultMaxWorkers = 16;
int WorkerThreads(int requested, size_t files);

// The threads each of those workers parses a file's parts on
// (KinetoParser): 2 when the threads the job may use (`requested`, or the
// hardware's as above) are at least twice the workers, else 1.
int PartThreads(int requested, size_t files);

// One rank from the records of its file (ParseKinetoJson's second half).
// Takes the records' names (the records are spent; their buffer stays).
// The events go into `storage`, emptied first: a worker reuses the buffer
// of a rank its caller has finished with.
Result<ImportedRank> BuildRank(KinetoRecords& in, std::string_view label, int default_rank, int default_world,
                               std::vector<Event> storage = {});

// As ParseKinetoJson, for bytes that may be gzip.
Result<ImportedRank> ParseKinetoBytes(std::string_view bytes, std::string_view label, int default_rank,
                                      int default_world);

}  // namespace braid::importers
