#include <algorithm>
#include <array>
#include <cmath>

#include "braid/comm_kernels.h"
#include "braid/hta.h"
#include "braid/intervals.h"

namespace braid {
namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)
bool IsCommName(std::string_view n) {
  return n.starts_with("nccl") || n.starts_with("hip") || n.starts_with("hccl") || Contains(n, "ncclKernel");
}

// (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)
bool IsMemoryName(std::string_view n) {
  return n.starts_with("Memcpy") || n.starts_with("hipMemcpy") || n.starts_with("Memset") ||
         n.starts_with("hipMemset") || n.starts_with("dma");
}

// HTA's list of names that are never computation: runtime activity that
// shows on the GPU timeline (synchronisation, stream waits) and anything
// communication- or memory-like that the first two rules did not catch.
bool IsExcludedFromCompute(std::string_view n) {
  static constexpr std::array<std::string_view, 4> kAnywhere = {"Memcpy", "Memset", "dma", "Sync"};
  static constexpr std::array<std::string_view, 2> kPrefix = {"nccl", "Stream Wait Event"};
  for (std::string_view p : kPrefix) {
    if (n.starts_with(p)) return true;
  }
  for (std::string_view p : kAnywhere) {
    if (Contains(n, p)) return true;
  }
  return false;
}

}  // namespace

EventKind ImportedGpuKind(bool is_kernel, std::string_view name) {
  // Braid's own kinds count the frameworks' communication too
  // (braid/comm_kernels.h); HTA's figures keep HTA's rules.
  if (ClassifyComm(name, is_kernel).has_value()) return EventKind::kComm;
  if (!is_kernel) return EventKind::kCopy;
  switch (ClassifyHtaKernel(name)) {
    case HtaKernelType::kComm:
      return EventKind::kComm;
    case HtaKernelType::kCompute:
      return EventKind::kCompute;
    case HtaKernelType::kMemory:
      return EventKind::kCopy;
    case HtaKernelType::kOther:
      return EventKind::kSync;
  }
  return EventKind::kSync;
}

HtaKernelType ClassifyHtaKernel(std::string_view name) {
  if (IsCommName(name)) return HtaKernelType::kComm;
  if (IsMemoryName(name)) return HtaKernelType::kMemory;
  if (IsExcludedFromCompute(name)) return HtaKernelType::kOther;
  return HtaKernelType::kCompute;
}

int64_t HtaRoundStartUs(double us) { return static_cast<int64_t>(std::ceil(us)); }
int64_t HtaRoundEndUs(double us) { return static_cast<int64_t>(std::floor(us)); }

double HtaPercent(int64_t part, int64_t whole) {
  if (whole <= 0) return 0;
  // Round half to even on the scaled value, as Python's round(x, 2) mostly does.
  return std::nearbyint(100.0 * static_cast<double>(part) / static_cast<double>(whole) * 100.0) / 100.0;
}

HtaFigures ComputeHtaFigures(const std::vector<HtaGpuEvent>& events) {
  HtaFigures f;
  if (events.empty()) return f;
  std::vector<Interval> comm, compute, all;
  all.reserve(events.size());
  int64_t first = events.front().begin;
  int64_t last = std::max(events.front().begin, events.front().end);
  for (const HtaGpuEvent& e : events) {
    const Interval i{e.begin, std::max(e.begin, e.end)};
    first = std::min(first, i.begin);
    last = std::max(last, i.end);
    all.push_back(i);
    if (e.type == HtaKernelType::kComm) comm.push_back(i);
    if (e.type == HtaKernelType::kCompute) compute.push_back(i);
  }
  comm = MergeIntervals(std::move(comm));
  compute = MergeIntervals(std::move(compute));
  all = MergeIntervals(std::move(all));
  const int64_t span = last - first;
  f.comm = UnionLength(comm);
  f.compute = UnionLength(compute);
  f.overlap = IntersectionLength(comm, compute);
  f.overlap_pct = HtaPercent(f.overlap, f.comm);
  f.idle_pct = HtaPercent(span - UnionLength(all), span);
  f.compute_pct = HtaPercent(f.compute, span);
  return f;
}

}  // namespace braid
