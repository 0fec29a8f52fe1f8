// Kineto records -> one ImportedRank: lanes per GPU stream, events in ns,
// ProfilerStep iterations, and the HTA figures in µs.
#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "braid/comm_kernels.h"
#include "braid/gemm_overlap.h"
#include "braid/trace_import.h"
#include "kineto_parse.h"
#include "kineto_records.h"
#include "rank_assembly.h"
#include "trace_dir.h"

namespace braid::importers {
namespace {

bool IsGpu(const KinetoRecord& r) {
  return (r.cat == KinetoCat::kKernel || r.cat == KinetoCat::kMemcpy || r.cat == KinetoCat::kMemset) && r.stream >= 0;
}

// µs -> ns keeping the fraction: the integer part is exact in double up to
// 2^53 µs, the fraction is rounded to the nearest ns.
int64_t UsToNs(double us) {
  const double whole = std::floor(us);
  return static_cast<int64_t>(whole) * 1000 + std::llround((us - whole) * 1000.0);
}

// HTA's filter: with more than one distinct ProfilerStep#N, GPU events count
// only when launched (same correlation id) by a CPU event that starts
// before the last step. Returns the records that count.
std::vector<const KinetoRecord*> HtaGpuRecords(const KinetoRecords& in) {
  std::vector<std::string_view> step_names;
  double last_step = 0;
  for (const KinetoRecord& r : in.events) {
    if (r.cat != KinetoCat::kStep) continue;
    last_step = step_names.empty() ? r.ts : std::max(last_step, r.ts);
    step_names.push_back(r.name);
  }
  std::sort(step_names.begin(), step_names.end());
  const bool filter = std::unique(step_names.begin(), step_names.end()) - step_names.begin() > 1;
  std::unordered_set<int64_t> launched_before_last;
  if (filter) {
    for (const KinetoRecord& r : in.events) {
      if (!IsGpu(r) && r.has_correlation && r.ts < last_step) launched_before_last.insert(r.correlation);
    }
  }
  std::vector<const KinetoRecord*> gpu;
  for (const KinetoRecord& r : in.events) {
    if (!IsGpu(r)) continue;
    if (filter && !(r.has_correlation && launched_before_last.contains(r.correlation))) continue;
    gpu.push_back(&r);
  }
  return gpu;
}

HtaFigures KinetoHtaFigures(const KinetoRecords& in) {
  std::vector<HtaGpuEvent> events;
  for (const KinetoRecord* r : HtaGpuRecords(in)) {
    events.push_back({HtaRoundStartUs(r->ts), HtaRoundEndUs(r->ts + r->dur), ClassifyHtaKernel(r->name)});
  }
  return ComputeHtaFigures(events);
}

// Lanes: one per (device, stream) of GPU activity, in that order, then
// "cpu runtime" when the trace has runtime calls, "gpu annotations" and "cpu
// ops" when it has those.
struct Lanes {
  std::map<std::pair<int64_t, int64_t>, int> by_stream;
  int runtime = -1;
  int gpu_ranges = -1;  // record_function ranges on the GPU timeline, all streams
  int gemm_ops = -1;    // PyTorch's GEMM ops with their dims, all threads
};

Lanes MakeLanes(const KinetoRecords& in, ImportedRank* rank) {
  Lanes lanes;
  bool runtime = false, gpu_ranges = false, gemm_ops = false;
  std::unordered_set<int64_t> devices;
  for (const KinetoRecord& r : in.events) {
    if (IsGpu(r) || (r.cat == KinetoCat::kSync && r.stream >= 0)) {
      lanes.by_stream.emplace(std::make_pair(r.device, r.stream), 0);
      devices.insert(r.device);
    }
    runtime = runtime || r.cat == KinetoCat::kRuntime;
    gpu_ranges = gpu_ranges || r.cat == KinetoCat::kGpuRange;
    gemm_ops = gemm_ops || r.cat == KinetoCat::kGemmOp;
  }
  int next = 0;
  for (auto& [key, lane] : lanes.by_stream) {
    lane = next++;
    std::string name = "stream " + std::to_string(key.second);
    if (devices.size() > 1) name = "device " + std::to_string(key.first) + " " + name;
    rank->lanes.push_back({lane, std::move(name)});
  }
  if (runtime) {
    lanes.runtime = next;
    rank->lanes.push_back({next++, std::string(kRuntimeLaneName)});
  }
  if (gpu_ranges) {
    lanes.gpu_ranges = next;
    rank->lanes.push_back({next++, std::string(kGpuRangeLaneName)});
  }
  if (gemm_ops) {
    lanes.gemm_ops = next;
    rank->lanes.push_back({next++, std::string(kCpuOpLaneName)});
  }
  return lanes;
}

}  // namespace

namespace {
// The threads a job may use: `requested` when above 0, else the machine's
// hardware threads up to 16 (each worker holds one file's bytes, about 3x
// its JSON: 16 hold ~1.7 GB of 35 MB traces).
int ThreadsWanted(int requested) {
  return requested > 0 ? requested : int(std::clamp(std::thread::hardware_concurrency(), 1u, kDefaultMaxWorkers));
}
}  // namespace

// The workers a job of `files` files gets: ThreadsWanted, never more than
// the files, at most 64.
int WorkerThreads(int requested, size_t files) {
  return int(std::clamp<size_t>(size_t(ThreadsWanted(requested)), 1, std::clamp<size_t>(files, 1, 64)));
}

// One file on two cores waited on one: its parts parse on both (35 MB of
// JSON: see docs/cli.md, "Import speed").
int PartThreads(int requested, size_t files) {
  return ThreadsWanted(requested) >= 2 * WorkerThreads(requested, files) ? 2 : 1;
}

Result<ImportedRank> BuildRank(KinetoRecords& in, std::string_view label, int default_rank, int default_world,
                               std::vector<Event> storage) {
  ImportedRank rank;
  storage.clear();
  rank.events = std::move(storage);
  rank.rank = in.rank.value_or(default_rank);
  rank.world = in.world.value_or(default_world);
  if (rank.world <= rank.rank) rank.world = rank.rank + 1;
  rank.hta = KinetoHtaFigures(in);

  StepIndex steps;
  std::unordered_map<int64_t, int64_t> launch_ns;  // correlation -> CPU call start
  bool any_gpu = false;
  for (const KinetoRecord& r : in.events) {
    if (r.cat == KinetoCat::kStep) steps.Add(UsToNs(r.ts));
    if (r.cat == KinetoCat::kRuntime && r.has_correlation) launch_ns.emplace(r.correlation, UsToNs(r.ts));
    if (IsGpu(r) && !any_gpu) {
      any_gpu = true;
      rank.device = static_cast<int>(std::clamp<int64_t>(r.device, -1, 1 << 24));
    }
  }
  if (!any_gpu) {
    return Status::Invalid(std::string(label) + ": empty trace: no GPU kernels, memcpys or memsets (" +
                           std::to_string(in.events_seen) + " events)");
  }
  steps.Finish();
  const Lanes lanes = MakeLanes(in, &rank);

  rank.events.reserve(in.events.size());
  for (KinetoRecord& r : in.events) {
    const bool gpu = IsGpu(r) || (r.cat == KinetoCat::kSync && r.stream >= 0);
    if (!gpu && r.cat != KinetoCat::kRuntime && r.cat != KinetoCat::kGpuRange && r.cat != KinetoCat::kGemmOp) continue;
    Event e;
    e.rank = rank.rank;
    e.start_ns = UsToNs(r.ts);
    e.end_ns = e.start_ns + std::llround(r.dur * 1000.0);
    e.correlation = r.has_correlation ? r.correlation : -1;
    int64_t when = e.start_ns;
    if (gpu) {
      e.lane = lanes.by_stream.at({r.device, r.stream});
      e.kind = r.cat == KinetoCat::kSync ? EventKind::kSync : ImportedGpuKind(r.cat == KinetoCat::kKernel, r.name);
      e.bytes = r.cat == KinetoCat::kKernel ? 0 : r.bytes;
      if (const auto it = launch_ns.find(e.correlation); r.has_correlation && it != launch_ns.end()) {
        when = it->second;
      }
    } else {
      e.lane = r.cat == KinetoCat::kRuntime    ? lanes.runtime
               : r.cat == KinetoCat::kGpuRange ? lanes.gpu_ranges
                                               : lanes.gemm_ops;
      e.kind = EventKind::kMarker;
    }
    e.iteration = steps.IterationAt(when);
    e.name = std::move(r.name);
    rank.events.push_back(std::move(e));
  }
  MarkFrameworkPeerCopies(&rank.events);
  SortEvents(&rank.events);
  return rank;
}

Result<ImportedRank> ParseKinetoJson(const PaddedBytes& json, std::string_view label, int default_rank,
                                     int default_world) {
  KinetoRecords records;
  BRAID_RETURN_IF_ERROR(ReadKinetoRecords(json, label, &records));
  return BuildRank(records, label, default_rank, default_world);
}

Result<ImportedRank> ParseKinetoBytes(std::string_view bytes, std::string_view label, int default_rank,
                                      int default_world) {
  PaddedBytes json;
  BRAID_RETURN_IF_ERROR(BytesMaybeGzip(bytes, label, &json));
  return ParseKinetoJson(json, label, default_rank, default_world);
}

}  // namespace braid::importers

namespace braid {

Result<std::unique_ptr<KinetoJob>> KinetoJob::Start(const std::vector<std::string>& given,
                                                    const KinetoImportOptions& options) {
  if (given.empty()) return Status::Invalid("kineto import: no trace files given");
  BRAID_ASSIGN_OR_RETURN(std::vector<std::string> paths, importers::ExpandTraceDirs(given));
  std::unique_ptr<KinetoJob> job(new KinetoJob(std::move(paths), options));
  BRAID_RETURN_IF_ERROR(job->StartWorkers());
  return job;
}

KinetoJob::KinetoJob(std::vector<std::string> paths, const KinetoImportOptions& options)
    : paths_(std::move(paths)),
      threads_(importers::WorkerThreads(options.threads, paths_.size())),
      part_threads_(importers::PartThreads(options.threads, paths_.size())),
      ranks_(paths_.size()),
      said_world_(paths_.size()),
      status_(paths_.size()),
      done_(paths_.size(), 0) {}

KinetoJob::~KinetoJob() {
  {
    std::lock_guard<std::mutex> lock(mu_);  // a worker waiting its turn sees it
    stop_.store(true);
  }
  taken_.notify_all();
  for (std::thread& t : workers_) t.join();
}

Status KinetoJob::StartWorkers() {
  for (int t = 0; t < threads_; ++t) {
    try {
      workers_.emplace_back([this] { Work(); });
    } catch (const std::system_error&) {
      if (t == 0) return Status::Internal("kineto import: cannot start a thread to read the traces");
      break;  // fewer threads do the same work
    }
  }
  return Status::Ok();
}

// One worker: file after file in index order, its buffers reused. Once a
// file has failed no later one starts: only the first failure is reported.
void KinetoJob::Work() {
  importers::PaddedBytes json, gz;
  importers::KinetoParser parser(part_threads_);
  importers::KinetoRecords records;  // its buffer, too, serves file after file
  const int files = static_cast<int>(paths_.size());
  for (size_t i = next_.fetch_add(1); i < paths_.size(); i = next_.fetch_add(1)) {
    {
      // At most one file per worker ahead of the one the caller stores: a
      // caller storing ranks is the slowest stage (SQLite, one thread), and
      // workers racing ahead took the cores from it; it was then left to
      // store the last tenth of a 64-rank job alone on one core.
      std::unique_lock<std::mutex> lock(mu_);
      taken_.wait(lock, [&] { return stop_.load() || i < given_ + size_t(threads_); });
    }
    if (stop_.load() || i > first_failed_.load()) break;
    const std::string& path = paths_[i];
    Status s;
    try {
      records.events.clear();
      records.events_seen = 0;
      records.rank.reset();
      records.world.reset();
      // Gzip is read as it inflates (kineto_records.h) where it can be;
      // otherwise inflated whole first, which names any problem in it.
      s = importers::ReadTraceFile(path, &gz, kMaxTraceBytes);
      bool too_big = false;
      if (s.ok() && !importers::ReadKinetoRecordsInflating(gz.view(), path, &records, &parser,
                                                           importers::kKinetoPartBytes, kMaxTraceBytes, &too_big)) {
        if (too_big) {
          s = importers::InflateTooBig(path, gz.size(), kMaxTraceBytes);
        } else if (importers::IsGzip(gz.view())) {
          s = importers::Gunzip(gz.view(), path, &json);
          if (s.ok()) s = importers::ReadKinetoRecords(json, path, &records, &parser);
        } else {
          s = importers::ReadKinetoRecords(gz, path, &records, &parser);  // plain JSON, as read
        }
      }
      if (s.ok()) {
        said_world_[i] = records.world;
        Result<ImportedRank> rank = importers::BuildRank(records, path, int(i), files, TakeSpare());
        if (rank.ok()) {
          ranks_[i] = std::move(rank).value();
        } else {
          s = rank.status();
        }
      }
    } catch (const std::bad_alloc&) {
      s = Status::Internal(OneLine(path) + ": out of memory while importing it");
    } catch (const std::exception& e) {  // on a worker thread it would end the process
      s = Status::Internal(OneLine(path) + ": " + OneLine(e.what()));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!s.ok()) {
      status_[i] = std::move(s);
      first_failed_.store(std::min(first_failed_.load(), i));
    }
    done_[i] = 1;
    ready_.notify_all();
  }
}

void KinetoJob::GiveBack(std::vector<Event> events) {
  std::lock_guard<std::mutex> lock(mu_);
  spare_.push_back(std::move(events));
}

std::vector<Event> KinetoJob::TakeSpare() {
  std::vector<Event> events;
  std::lock_guard<std::mutex> lock(mu_);
  if (!spare_.empty()) {
    events = std::move(spare_.back());
    spare_.pop_back();
  }
  return events;
}

Result<ImportedRank*> KinetoJob::Next() {
  if (given_ == paths_.size()) return static_cast<ImportedRank*>(nullptr);
  const size_t i = given_;
  std::unique_lock<std::mutex> lock(mu_);
  ready_.wait(lock, [&] { return done_[i] != 0; });  // a worker owns every index up to a failure, and i is not past it
  if (!status_[i].ok()) return status_[i];
  const int r = ranks_[i].rank;
  if (auto [it, fresh] = file_of_rank_.emplace(r, i); !fresh) {
    return Status::Invalid(OneLine(paths_[i]) + ": rank " + std::to_string(r) + " again (" +
                           OneLine(paths_[it->second]) + " is rank " + std::to_string(r) + " too)");
  }
  ++given_;
  lock.unlock();
  taken_.notify_all();
  return &ranks_[i];
}

Result<ImportedTrace> KinetoJob::Finish() {
  while (given_ < paths_.size()) BRAID_RETURN_IF_ERROR(Next().status());
  ImportedTrace trace;
  trace.format = "kineto";
  trace.files = paths_;
  trace.ranks = std::move(ranks_);
  const std::vector<std::string>& paths = paths_;
  const std::vector<std::optional<int>>& said_world = said_world_;
  std::optional<int> world;
  size_t world_file = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (said_world[i]) {
      if (world && *world != *said_world[i]) {
        return Status::Invalid(OneLine(paths[i]) + ": world_size " + std::to_string(*said_world[i]) + ", but " +
                               OneLine(paths[world_file]) + " says " + std::to_string(*world) +
                               " (the traces of one job agree on it)");
      }
      world = said_world[i];
      world_file = i;
    }
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    const int r = trace.ranks[i].rank;
    if (world && r >= *world) {
      return Status::Invalid(OneLine(paths[i]) + ": rank " + std::to_string(r) + " is not below the job's world_size " +
                             std::to_string(*world));
    }
    if (world) trace.ranks[i].world = *world;
  }
  return trace;
}

Result<ImportedTrace> ImportKineto(const std::vector<std::string>& paths, const KinetoImportOptions& options) {
  BRAID_ASSIGN_OR_RETURN(std::unique_ptr<KinetoJob> job, KinetoJob::Start(paths, options));
  return job->Finish();
}

}  // namespace braid
