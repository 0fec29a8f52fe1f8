// HolisticTraceAnalysis (HTA) style figures of one rank's GPU timeline:
// communication / computation time, their overlap, idle and compute shares.
// The rules are HolisticTraceAnalysis's own definitions:
//   - a name is communication if it matches (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*),
//     memory if it matches (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma), otherwise
//     computation unless it hits the exclusion list (then "other");
//   - comm and compute intervals are each merged (touching intervals merge);
//   - idle = span of all GPU events − |union of all GPU events|;
//   - percentages are rounded to 2 decimals (0 when the base is 0).
#pragma once

#include "braid/event.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace braid {

// Figures in the trace's time unit: µs for Kineto, ns for Nsight Systems.
struct HtaFigures {
  int64_t comm = 0;        // |union of communication kernels|
  int64_t compute = 0;     // |union of computation kernels|
  int64_t overlap = 0;     // |comm ∩ compute|
  double overlap_pct = 0;  // 100 · overlap / comm
  double idle_pct = 0;     // 100 · idle / span
  double compute_pct = 0;  // 100 · compute / span
};

enum class HtaKernelType { kComm, kMemory, kCompute, kOther };

// Classifies a GPU event by its name (case sensitive, as HTA's regexes).
HtaKernelType ClassifyHtaKernel(std::string_view name);

// The Braid event kind of an imported GPU event: communication by HTA's
// rules or the frameworks' (braid/comm_kernels.h: TE userbuffers, PyTorch
// symmetric memory, copies between devices) is comm; other memcpys and
// memsets are copies; other kernels compute / copy / sync by HTA's
// classification.
EventKind ImportedGpuKind(bool is_kernel, std::string_view name);

// One GPU event (kernel, memcpy or memset) on the rank's timeline.
struct HtaGpuEvent {
  int64_t begin = 0;
  int64_t end = 0;  // an end before begin is read as begin (an empty event)
  HtaKernelType type = HtaKernelType::kCompute;
};

// @post all fields 0 when `events` is empty.
HtaFigures ComputeHtaFigures(const std::vector<HtaGpuEvent>& events);

// Kineto float timestamps in µs become whole µs: starts round up, ends down.
// @pre the value is finite and within ±9e15 (checked by the importers).
int64_t HtaRoundStartUs(double us);
int64_t HtaRoundEndUs(double us);

// 100 · part / whole rounded to 2 decimals; 0 when whole is 0.
double HtaPercent(int64_t part, int64_t whole);

}  // namespace braid
