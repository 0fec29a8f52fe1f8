// Nsight Systems rows -> one ImportedRank per CUDA device: lanes per stream,
// runtime calls and NVTX ranges as markers, HTA figures in ns.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "braid/comm_kernels.h"
#include "braid/gemm_overlap.h"
#include "braid/trace_import.h"
#include "nsys_rows.h"
#include "rank_assembly.h"
#include "sqlite_reader.h"

namespace braid::importers {
namespace {

using ProcessCorrelation = std::pair<int64_t, int64_t>;

HtaKernelType HtaType(const NsysGpuRow& r) {
  return r.kind == NsysGpuKind::kKernel ? ClassifyHtaKernel(r.name) : HtaKernelType::kMemory;
}

// "stream 7 (NVIDIA GeForce RTX 3080, null stream, priority -5)": the
// details come from TARGET_INFO_GPU / TARGET_INFO_CUDA_STREAM when present.
std::string LaneName(const NsysRows& rows, int device, int64_t stream, int64_t process) {
  std::vector<std::string> details;
  if (const auto gpu = rows.gpu_names.find(device); gpu != rows.gpu_names.end()) details.push_back(gpu->second);
  if (const auto info = rows.stream_info.find({NsysPid(process), stream}); info != rows.stream_info.end()) {
    if (info->second.flag == 1) details.emplace_back("default stream");
    if (info->second.flag == 2) details.emplace_back("non-blocking");
    if (info->second.flag == 3) details.emplace_back("null stream");
    if (info->second.priority != 0) details.push_back("priority " + std::to_string(info->second.priority));
  }
  std::string name = "stream " + std::to_string(stream);
  for (size_t i = 0; i < details.size(); ++i) name += (i == 0 ? " (" : ", ") + details[i];
  if (!details.empty()) name += ")";
  return name;
}

// What each rank owns, as indices into NsysRows.
struct RankRows {
  std::vector<const NsysGpuRow*> gpu;
  std::vector<const NsysCpuRow*> runtime;
  std::vector<const NsysCpuRow*> nvtx;
};

// GPU rows go to their device's rank. A runtime call goes to the rank whose
// GPU work it launched (same process and correlation id), else to every
// rank its process used; NVTX ranges go to every rank of their process. CPU
// rows of unknown processes are kept only when there is a single rank.
std::vector<RankRows> SplitByRank(const NsysRows& rows, const std::map<int, int>& rank_of_device) {
  std::vector<RankRows> out(rank_of_device.size());
  std::map<int64_t, std::set<int>> ranks_of_process;
  std::map<ProcessCorrelation, int> rank_of_launch;
  for (const NsysGpuRow& r : rows.gpu) {
    const int rank = rank_of_device.at(r.device);
    out[size_t(rank)].gpu.push_back(&r);
    if (r.process >= 0) ranks_of_process[r.process].insert(rank);
    if (r.correlation >= 0) rank_of_launch.emplace(ProcessCorrelation{r.process, r.correlation}, rank);
  }
  auto ranks_of = [&](int64_t process) -> std::set<int> {
    if (const auto it = ranks_of_process.find(process); it != ranks_of_process.end()) return it->second;
    return out.size() == 1 ? std::set<int>{0} : std::set<int>{};
  };
  for (const NsysCpuRow& r : rows.runtime) {
    if (const auto it = rank_of_launch.find({r.process, r.correlation});
        r.correlation >= 0 && it != rank_of_launch.end()) {
      out[size_t(it->second)].runtime.push_back(&r);
      continue;
    }
    for (int rank : ranks_of(r.process)) out[size_t(rank)].runtime.push_back(&r);
  }
  for (const NsysCpuRow& r : rows.nvtx) {
    for (int rank : ranks_of(r.process)) out[size_t(rank)].nvtx.push_back(&r);
  }
  return out;
}

Event CpuMarker(const NsysCpuRow& r, int rank, int lane, const StepIndex& steps) {
  Event e;
  e.rank = rank;
  e.lane = lane;
  e.kind = EventKind::kMarker;
  e.name = r.name;
  e.start_ns = r.start;
  e.end_ns = std::max(r.start, r.end);
  e.correlation = r.correlation;
  e.iteration = steps.IterationAt(r.start);
  return e;
}

ImportedRank BuildRank(const NsysRows& rows, const RankRows& mine, int rank, int world, int device) {
  ImportedRank out;
  out.rank = rank;
  out.world = world;
  out.device = device;

  StepIndex steps;
  for (const NsysCpuRow* r : mine.nvtx) {
    if (r->name.starts_with("ProfilerStep#")) steps.Add(r->start);
  }
  steps.Finish();
  std::map<ProcessCorrelation, int64_t> launch_ns;
  for (const NsysCpuRow* r : mine.runtime) {
    if (r->correlation >= 0) launch_ns.emplace(ProcessCorrelation{r->process, r->correlation}, r->start);
  }

  std::map<int64_t, int64_t> stream_process;  // stream -> process of its first row
  for (const NsysGpuRow* r : mine.gpu) stream_process.emplace(r->stream, r->process);
  std::map<int64_t, int> lane_of_stream;
  for (const auto& [stream, process] : stream_process) {
    const int lane = static_cast<int>(out.lanes.size());
    lane_of_stream[stream] = lane;
    out.lanes.push_back({lane, LaneName(rows, device, stream, process)});
  }
  const int runtime_lane = static_cast<int>(out.lanes.size()) + (mine.runtime.empty() ? -1 : 0);
  if (!mine.runtime.empty()) out.lanes.push_back({runtime_lane, std::string(kRuntimeLaneName)});
  const int nvtx_lane = static_cast<int>(out.lanes.size()) + (mine.nvtx.empty() ? -1 : 0);
  if (!mine.nvtx.empty()) out.lanes.push_back({nvtx_lane, std::string(kNvtxLaneName)});

  std::vector<HtaGpuEvent> hta;
  hta.reserve(mine.gpu.size());
  out.events.reserve(mine.gpu.size() + mine.runtime.size() + mine.nvtx.size());
  for (const NsysGpuRow* r : mine.gpu) {
    hta.push_back({r->start, r->end, HtaType(*r)});
    Event e;
    e.rank = rank;
    e.lane = lane_of_stream.at(r->stream);
    e.kind = ImportedGpuKind(r->kind == NsysGpuKind::kKernel, r->name);
    e.name = r->name;
    e.start_ns = r->start;
    e.end_ns = std::max(r->start, r->end);
    e.bytes = r->bytes;
    e.correlation = r->correlation;
    const auto launch = launch_ns.find({r->process, r->correlation});
    e.iteration = steps.IterationAt(launch != launch_ns.end() ? launch->second : r->start);
    out.events.push_back(std::move(e));
  }
  for (const NsysCpuRow* r : mine.runtime) out.events.push_back(CpuMarker(*r, rank, runtime_lane, steps));
  for (const NsysCpuRow* r : mine.nvtx) out.events.push_back(CpuMarker(*r, rank, nvtx_lane, steps));
  MarkFrameworkPeerCopies(&out.events);
  out.hta = ComputeHtaFigures(hta);
  SortEvents(&out.events);
  return out;
}

}  // namespace
}  // namespace braid::importers

namespace braid {

Result<ImportedTrace> ImportNsys(const std::string& sqlite_path) {
  using namespace importers;
  BRAID_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(sqlite_path));
  NsysRows rows;
  BRAID_RETURN_IF_ERROR(ReadNsysRows(db, &rows));
  if (rows.gpu.empty()) return db.Fail("empty trace: no kernels, memcpys or memsets");

  std::map<int, int> rank_of_device;
  for (const NsysGpuRow& r : rows.gpu) rank_of_device.emplace(r.device, 0);
  int next = 0;
  for (auto& [device, rank] : rank_of_device) rank = next++;

  ImportedTrace trace;
  trace.format = "nsys";
  trace.files = {sqlite_path};
  const std::vector<RankRows> split = SplitByRank(rows, rank_of_device);
  for (const auto& [device, rank] : rank_of_device) {
    trace.ranks.push_back(BuildRank(rows, split[size_t(rank)], rank, next, device));
  }
  return trace;
}

}  // namespace braid
