// Importers of traces users already have: PyTorch profiler (Kineto) JSON and
// Nsight Systems SQLite exports. They produce Braid events per rank plus the
// HolisticTraceAnalysis figures of braid/hta.h.
//
// Events:
//   - GPU kernels, memcpys and memsets: one lane per GPU stream ("stream 7");
//     kind kComm / kCompute for HTA communication / computation kernels,
//     kCopy for memcpys and memsets, kSync for the rest (HTA's "other").
//   - CPU runtime / driver calls: kMarker on a "cpu runtime" lane, kept for
//     their correlation ids.
//   - Nsight Systems NVTX ranges: kMarker on an "nvtx" lane.
//   Times are ns (Kineto µs · 1000); correlation is the trace's correlation
//   id; iteration is the index of the ProfilerStep range the event (a GPU
//   event: the CPU call that launched it) falls in, 0 when there is none.
//   Every event of the trace is kept: the HTA filtering below only changes
//   the figures.
//
// HTA figures (HtaFigures in braid/hta.h): Kineto in µs, with float
// timestamps rounded (start up, end down) and, when the trace has more than
// one ProfilerStep#N, only GPU events launched before the last step; nsys in
// ns, per device, comm / compute over kernels, span over kernels, memcpys
// and memsets.
//
// Errors: every bad input (missing file, corrupt or truncated gzip, JSON that
// is not a trace, a trace without GPU events, SQLite that is not an nsys
// export, a file that is not SQLite) is a one-line Status::Invalid that
// starts with the file's path.
#pragma once

#include <atomic>
#include <condition_variable>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "braid/budgets.h"
#include "braid/event.h"
#include "braid/hta.h"
#include "braid/status.h"

namespace braid {

struct ImportedLane {
  int lane = 0;
  std::string name;  // "stream 7", "cpu runtime", "nvtx"
};

struct ImportedRank {
  int rank = 0;
  int world = 1;
  int device = -1;  // CUDA device id, -1 when unknown
  std::vector<ImportedLane> lanes;
  std::vector<Event> events;  // sorted by (start_ns, lane)
  HtaFigures hta;
};

struct ImportedTrace {
  std::string format;              // "kineto" | "nsys"
  std::vector<std::string> files;  // what was read, directories listed; ranks[i] is files[i] (Kineto)
  std::vector<ImportedRank> ranks;
};

struct KinetoImportOptions {
  // Threads the files are read on, one file each; 0: the machine's hardware
  // threads, at most 16. Each holds one file's bytes (about 3x its JSON)
  // while it works. With at least twice as many threads as files, each
  // file's parts are parsed on two.
  int threads = 0;
};

// One rank per file, plain JSON or gzip (detected by content); a directory
// stands for its *.json and *.json.gz files, in name order. Rank and world
// come from "distributedInfo"; without it, the file's index and the number
// of files (or the world size the other files give). Files of one job must
// agree: two world sizes, a rank given twice or a rank not below the world
// size are refused, naming both files. The files are read in parallel
// (options.threads); the result is the same whatever the thread count, and
// of several bad files the first in order is the one reported.
Result<ImportedTrace> ImportKineto(const std::vector<std::string>& paths, const KinetoImportOptions& options = {});

// ImportKineto a rank at a time: the files are read on worker threads and
// handed out in file order as they are ready, so that a caller can store one
// rank while the next are being read (braid import). Finish() then makes the
// checks across files and gives the whole trace, as ImportKineto does.
class KinetoJob {
 public:
  // Lists directories, then starts the workers.
  static Result<std::unique_ptr<KinetoJob>> Start(const std::vector<std::string>& paths,
                                                  const KinetoImportOptions& options = {});
  // Stops the workers: files not started by then are not read.
  ~KinetoJob();
  KinetoJob(const KinetoJob&) = delete;
  KinetoJob& operator=(const KinetoJob&) = delete;

  const std::vector<std::string>& files() const { return paths_; }
  // The next file's rank, waiting for its worker; nullptr after the last.
  // The job keeps it until Finish(); the caller may read its events (they
  // are not touched again). The first bad file in order is the error, and
  // a rank that an earlier file had is one: a caller storing each rank as
  // it comes never meets it twice.
  Result<ImportedRank*> Next();
  // Hands back the events of a rank from Next() that the caller is done
  // with: a worker frees them and reads its next file into their buffer,
  // off the caller's thread (freeing a 64-rank job's 1.5M event names took
  // the storing thread a twentieth of its time).
  void GiveBack(std::vector<Event> events);
  // Every rank (those not taken by Next() are waited for), checked across
  // files: one world size, each rank once, each below the world size.
  Result<ImportedTrace> Finish();

 private:
  KinetoJob(std::vector<std::string> paths, const KinetoImportOptions& options);
  Status StartWorkers();
  void Work();
  std::vector<Event> TakeSpare();  // a buffer given back, or an empty one

  std::vector<std::string> paths_;
  int threads_;
  int part_threads_;  // per worker, for one file's parts (KinetoParser)
  std::vector<ImportedRank> ranks_;
  std::vector<std::optional<int>> said_world_;  // each file's distributedInfo.world_size
  std::vector<Status> status_;
  std::vector<char> done_;                 // guarded by mu_
  std::vector<std::vector<Event>> spare_;  // given back, guarded by mu_
  size_t given_ = 0;                       // files handed out by Next()
  std::map<int, size_t> file_of_rank_;     // the ranks handed out, and their files
  std::atomic<size_t> next_{0};
  std::atomic<size_t> first_failed_{std::numeric_limits<size_t>::max()};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable ready_;  // a file is done
  std::condition_variable taken_;  // Next() handed a file out: a worker may start one more
  std::vector<std::thread> workers_;
};

// One rank per CUDA device, ranked by device id. Opened read-only.
Result<ImportedTrace> ImportNsys(const std::string& sqlite_path);

}  // namespace braid
