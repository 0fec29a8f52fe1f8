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

#include <string>
#include <vector>

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
  std::string format;  // "kineto" | "nsys"
  std::vector<ImportedRank> ranks;
};

// One rank per file, plain JSON or gzip (detected by content). Rank and
// world come from "distributedInfo"; without it, the file's index and the
// number of files (or the world size the other files give). Files of one job
// must agree: two world sizes, a rank given twice or a rank not below the
// world size are refused, naming both files.
Result<ImportedTrace> ImportKineto(const std::vector<std::string>& paths);

// One rank per CUDA device, ranked by device id. Opened read-only.
Result<ImportedTrace> ImportNsys(const std::string& sqlite_path);

}  // namespace braid
