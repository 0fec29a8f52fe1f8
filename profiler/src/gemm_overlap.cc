#include "braid/gemm_overlap.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "braid/gemm_keys.h"
#include "braid/intervals.h"

namespace braid {

std::string_view OverlapMethodName(OverlapMethod m) {
  switch (m) {
    case OverlapMethod::kNone:
      return "none";
    case OverlapMethod::kBulk:
      return "bulk";
    case OverlapMethod::kPipeline:
      return "pipeline";
    case OverlapMethod::kRing:
      return "ring";
    case OverlapMethod::kAsyncTp:
      return "async_tp";
  }
  return "?";
}

std::string_view GemmVerdictName(GemmVerdict v) {
  switch (v) {
    case GemmVerdict::kOverlapped:
      return "overlapped";
    case GemmVerdict::kPartly:
      return "partly";
    case GemmVerdict::kNotOverlappedAlthoughConfigured:
      return "not_overlapped_although_configured";
    case GemmVerdict::kNotOverlapped:
      return "not_overlapped";
    case GemmVerdict::kNoComm:
      return "no_comm";
  }
  return "?";
}

namespace {

struct CommEvent {
  const Event* event;
  CommKind kind;
};

struct Group {
  std::vector<const Event*> kernels;
  std::vector<Interval> busy;  // merged kernel intervals
  int64_t start = 0, end = 0;
  std::vector<const CommEvent*> comm;
};

// The communication an event is: its name's kind, else (an event a backend
// already marked as communication) of a library the table does not know.
std::optional<CommKind> CommOf(const Event& e) {
  if (e.kind == EventKind::kMarker || e.kind == EventKind::kSync) return std::nullopt;
  const bool memcpy = std::string_view(e.name).starts_with("Memcpy");
  if (std::optional<CommKind> k = ClassifyComm(e.name, !memcpy)) return k;
  // A device-to-device copy an importer took for a peer copy
  // (MarkFrameworkPeerCopies).
  if (memcpy && e.kind == EventKind::kComm) return CommKind{CommLibrary::kCopyEngine, CommPattern::kP2p, false};
  if (e.kind == EventKind::kComm) return CommKind{CommLibrary::kOther, CommPattern::kOther, false};
  return std::nullopt;
}

// GEMM groups of one rank and iteration (header): compute events in start order.
std::vector<Group> GroupGemms(std::vector<const Event*> compute) {
  std::sort(compute.begin(), compute.end(), [](const Event* a, const Event* b) { return a->start_ns < b->start_ns; });
  std::vector<Group> groups;
  bool open = false;
  for (const Event* e : compute) {
    if (!IsGemmKernelName(e->name)) {
      if (e->end_ns - e->start_ns >= kSplitNs) open = false;
      continue;
    }
    if (!open || groups.back().kernels.front()->name != e->name) groups.emplace_back();
    open = true;
    groups.back().kernels.push_back(e);
  }
  for (Group& g : groups) {
    std::vector<Interval> iv;
    for (const Event* k : g.kernels) iv.push_back({k->start_ns, k->end_ns});
    g.busy = MergeIntervals(std::move(iv));
    g.start = g.kernels.front()->start_ns;
    g.end = g.start;
    for (const Event* k : g.kernels) g.end = std::max(g.end, k->end_ns);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.start < b.start; });
  return groups;
}

// Each communication event to the group it overlaps most, else the nearest.
void AssignComm(std::vector<Group>& groups, const std::vector<CommEvent>& comm) {
  std::vector<int64_t> max_end(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) max_end[g] = std::max(groups[g].end, g > 0 ? max_end[g - 1] : INT64_MIN);
  std::vector<const CommEvent*> order;
  for (const CommEvent& c : comm) order.push_back(&c);
  std::sort(order.begin(), order.end(),
            [](const CommEvent* a, const CommEvent* b) { return a->event->start_ns < b->event->start_ns; });
  size_t first = 0;  // groups before it all end before the current event starts
  for (const CommEvent* c : order) {
    const int64_t s = c->event->start_ns, e = std::max(c->event->end_ns, s);
    while (first < groups.size() && max_end[first] <= s) ++first;
    size_t best = groups.size();
    int64_t best_overlap = 0;
    for (size_t g = first; g < groups.size() && groups[g].start < e; ++g) {
      const int64_t o = OverlapLength(groups[g].busy, Interval{s, e});
      if (o > best_overlap) best_overlap = o, best = g;
    }
    if (best == groups.size()) {
      // The nearest: the last group starting before it, or the first after.
      const auto next =
          std::lower_bound(groups.begin(), groups.end(), s, [](const Group& g, int64_t t) { return g.start < t; });
      const size_t n = size_t(next - groups.begin());
      const int64_t gap_next = n < groups.size() ? groups[n].start - e : INT64_MAX;
      const int64_t gap_prev = n > 0 ? s - groups[n - 1].end : INT64_MAX;
      best = gap_prev <= gap_next ? n - 1 : n;
    }
    groups[best].comm.push_back(c);
  }
}

template <typename T>
void AddOnce(std::vector<T>& v, T x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

OverlapMethod MethodOf(const GemmOverlapRow& row, const Group& g) {
  if (g.comm.empty()) return OverlapMethod::kNone;
  auto has_library = [&](CommLibrary l) {
    return std::find(row.libraries.begin(), row.libraries.end(), l) != row.libraries.end();
  };
  auto has_pattern = [&](CommPattern p) {
    return std::find(row.patterns.begin(), row.patterns.end(), p) != row.patterns.end();
  };
  const bool chunks = row.kernels >= 2;
  // TE's ring_exchange moves its steps by copy engine too: its flag kernels
  // say whose copies they are.
  if (has_library(CommLibrary::kTeUserbuffers) && has_pattern(CommPattern::kP2p)) return OverlapMethod::kRing;
  if (has_library(CommLibrary::kTorchSymmMem) || (has_library(CommLibrary::kCopyEngine) && chunks)) {
    return OverlapMethod::kAsyncTp;
  }
  // An overlap library's kernels say an overlap was configured, fired or
  // not. Another library's (NCCL) collectives say so only where they ran
  // beside the GEMM (at least a tenth of them): GEMMs of one shape back to
  // back (a model's layers) with a collective after them, or a long
  // collective that merely touches a GEMM, configured nothing.
  const bool overlap_library = has_library(CommLibrary::kTeUserbuffers) || has_library(CommLibrary::kCopyEngine);
  const bool beside = row.comm_ns > 0 && double(row.overlapped_ns) >= 0.1 * double(row.comm_ns);
  if (!overlap_library && !beside) return OverlapMethod::kNone;
  return chunks ? OverlapMethod::kPipeline : OverlapMethod::kBulk;
}

GemmVerdict VerdictOf(const GemmOverlapRow& row) {
  if (row.comm_ns <= 0) return GemmVerdict::kNoComm;
  const double share = double(row.overlapped_ns) / double(row.comm_ns);
  if (share >= 0.9) return GemmVerdict::kOverlapped;
  if (share >= 0.1) return GemmVerdict::kPartly;
  return row.method == OverlapMethod::kNone ? GemmVerdict::kNotOverlapped
                                            : GemmVerdict::kNotOverlappedAlthoughConfigured;
}

// Named ranges of one rank: GPU-clock ranges hold kernels by their own time,
// host ranges (NVTX, and the GEMM ops' cpu_op ranges) by the time their
// launch call started.
struct Ranges {
  std::vector<const Event*> gpu, host, ops;
  std::map<int64_t, int64_t> launch_ns;  // correlation -> launch call start
};

// The innermost of `host` around the group's first launch, and of `gpu`
// around its kernels; null when none.
const Event* InnermostAround(const Ranges& r, const std::vector<const Event*>& gpu,
                             const std::vector<const Event*>& host, const Group& g) {
  const Event* k = g.kernels.front();
  const Event* best = nullptr;
  auto consider = [&](const Event* range, int64_t begin, int64_t end) {
    // A step's range holds every kernel of the step: it names none.
    if (range->start_ns > begin || range->end_ns < end || range->name.starts_with("ProfilerStep#")) return;
    if (best == nullptr || range->end_ns - range->start_ns < best->end_ns - best->start_ns) best = range;
  };
  for (const Event* range : gpu) consider(range, g.start, g.end);
  if (const auto it = r.launch_ns.find(k->correlation); k->correlation >= 0 && it != r.launch_ns.end()) {
    for (const Event* range : host) consider(range, it->second, it->second);
  }
  return best;
}

std::string LabelOf(const Ranges& r, const Group& g) {
  const Event* e = InnermostAround(r, r.gpu, r.host, g);
  return e != nullptr ? e->name : std::string();
}

std::string OpOf(const Ranges& r, const Group& g) {
  const Event* e = InnermostAround(r, {}, r.ops, g);
  return e != nullptr ? e->name : std::string();
}

}  // namespace

GemmOverlapReport AnalyzeGemmOverlap(const std::vector<Event>& events, const std::vector<TraceLane>& lanes) {
  GemmOverlapReport report;
  std::map<std::pair<int, int>, std::string_view> lane_name;
  for (const TraceLane& l : lanes) lane_name[{l.rank, l.lane}] = l.name;
  std::map<std::pair<int, int>, std::vector<const Event*>> compute;  // (rank, iteration)
  std::map<std::pair<int, int>, std::vector<CommEvent>> comm;
  std::map<int, Ranges> ranges;
  for (const Event& e : events) {
    if (e.kind == EventKind::kMarker) {
      const auto it = lane_name.find({e.rank, e.lane});
      if (it == lane_name.end()) continue;
      if (it->second == kRuntimeLaneName) {
        if (e.correlation >= 0) ranges[e.rank].launch_ns.emplace(e.correlation, e.start_ns);
      } else if (it->second == kNvtxLaneName) {
        ranges[e.rank].host.push_back(&e);
      } else if (it->second == kGpuRangeLaneName) {
        ranges[e.rank].gpu.push_back(&e);
      } else if (it->second == kCpuOpLaneName) {
        ranges[e.rank].ops.push_back(&e);
      }
      continue;
    }
    if (std::optional<CommKind> k = CommOf(e)) {
      comm[{e.rank, e.iteration}].push_back({&e, *k});
      ++report.comm_events;
    } else if (e.kind == EventKind::kCompute) {
      compute[{e.rank, e.iteration}].push_back(&e);
    }
  }
  for (auto& [where, c] : comm) {
    if (!compute.count(where)) report.unassigned_comm += int64_t(c.size());
  }
  for (auto& [where, kernels] : compute) {
    std::vector<Group> groups = GroupGemms(std::move(kernels));
    if (groups.empty()) {
      if (const auto it = comm.find(where); it != comm.end()) report.unassigned_comm += int64_t(it->second.size());
      continue;
    }
    if (const auto it = comm.find(where); it != comm.end()) AssignComm(groups, it->second);
    const Ranges& r = ranges[where.first];
    for (size_t i = 0; i < groups.size(); ++i) {
      const Group& g = groups[i];
      GemmOverlapRow row;
      row.rank = where.first;
      row.iteration = where.second;
      row.index = int(i);
      row.kernel = g.kernels.front()->name;
      row.label = LabelOf(r, g);
      row.op = OpOf(r, g);
      LabelKey key = GemmKeyOfLabel(row.label);
      row.key = std::move(key.key);
      row.key_source = std::move(key.source);
      row.kernels = int(g.kernels.size());
      row.start_ns = g.start;
      row.end_ns = g.end;
      row.gemm_ns = UnionLength(g.busy);
      std::vector<Interval> iv;
      int64_t span_start = g.start, span_end = g.end;
      for (const CommEvent* c : g.comm) {
        span_start = std::min(span_start, c->event->start_ns);
        span_end = std::max(span_end, c->event->end_ns);
        iv.push_back({c->event->start_ns, std::max(c->event->start_ns, c->event->end_ns)});
        AddOnce(row.libraries, c->kind.library);
        AddOnce(row.patterns, c->kind.pattern);
      }
      std::sort(row.libraries.begin(), row.libraries.end());
      std::sort(row.patterns.begin(), row.patterns.end());
      const std::vector<Interval> merged = MergeIntervals(std::move(iv));
      row.comm_ns = UnionLength(merged);
      row.overlapped_ns = IntersectionLength(merged, g.busy);
      row.exposed_ns = row.comm_ns - row.overlapped_ns;
      row.span_ns = span_end - span_start;
      row.method = MethodOf(row, g);
      row.verdict = VerdictOf(row);
      report.rows.push_back(std::move(row));
    }
  }
  return report;
}

}  // namespace braid
