// The rows of an Nsight Systems SQLite export that the importer uses. Only
// CUPTI_ACTIVITY_KIND_KERNEL and StringIds are required; memcpys, memsets,
// runtime calls, NVTX ranges and the TARGET_INFO tables are read when
// present, and absent optional columns read as NULL.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "braid/status.h"
#include "sqlite_reader.h"

namespace braid::importers {

enum class NsysGpuKind { kKernel, kMemcpy, kMemset };

struct NsysGpuRow {
  NsysGpuKind kind = NsysGpuKind::kKernel;
  int64_t start = 0;  // ns
  int64_t end = 0;
  int device = 0;
  int64_t stream = 0;
  int64_t correlation = -1;
  int64_t process = -1;  // globalPid >> 24 (hardware, VM and process id), -1 when unknown
  int64_t bytes = 0;
  std::string name;  // kernels: demangled name, else short name
};

// A CPU-side range: a CUDA runtime / driver call or an NVTX range.
struct NsysCpuRow {
  int64_t start = 0;
  int64_t end = 0;
  int64_t correlation = -1;
  int64_t process = -1;  // globalTid >> 24, -1 when unknown
  std::string name;
};

struct NsysStreamInfo {
  int priority = 0;
  int flag = 0;  // ENUM_CUPTI_STREAM_TYPE: 1 default, 2 non-blocking, 3 null
};

struct NsysRows {
  std::vector<NsysGpuRow> gpu;
  std::vector<NsysCpuRow> runtime;
  std::vector<NsysCpuRow> nvtx;
  std::map<int, std::string> gpu_names;                               // device id -> name
  std::map<std::pair<int64_t, int64_t>, NsysStreamInfo> stream_info;  // (pid, streamId)
};

// @post on error, a one-line Status::Invalid starting with the file's path.
Status ReadNsysRows(const SqliteDb& db, NsysRows* out);

// The process id inside a serialized global id (bits 24..47).
inline int64_t NsysPid(int64_t process) { return process < 0 ? -1 : process & 0xFFFFFF; }

}  // namespace braid::importers
