#include "rank_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "block_inputs.h"

namespace braid::cpu {

RankMemory::RankMemory(const RankPlan& plan, const std::vector<HostMatrix>& a, const std::vector<HostMatrix>& b)
    : plan_(&plan) {
  for (const BufferDecl& d : plan.buffers) {
    buffers_.emplace_back(size_t(d.rows * d.cols), 0.0f);
    if (d.role != BufferRole::kInput) continue;
    const InputWindow& w = d.input;
    const HostMatrix& src = w.matrix == Matrix::kA ? a[size_t(d.op)] : b[size_t(d.op)];
    float* dst = buffers_.back().data();
    for (int64_t i = 0; i < w.rows; ++i) {
      const float* from = src.row(w.row0 + i) + w.col0;
      std::copy(from, from + w.cols, dst + (w.dst_row + i) * d.cols);
    }
  }
}

RowSpan RankMemory::Span(const Region& r) {
  return {buffers_[size_t(r.buffer)].data(), plan_->buffers[size_t(r.buffer)].cols, r.row, r.rows, r.pieces, r.stride};
}

RowSpan RankMemory::Whole(BufferId b) {
  const BufferDecl& d = plan_->buffers[size_t(b)];
  return RowSpan::Dense(buffers_[size_t(b)].data(), d.rows, d.cols);
}

double RunBytes(const Plan& plan, bool verify, int rank) {
  // double: the sum of many large buffers must not overflow before the check.
  double elems = 0;
  const int ops = plan.op_count();
  for (int i = 0; i < ops; ++i) {
    if (plan.is_layer() && !plan.ops[size_t(i)].gemm) continue;
    const Workload& w = plan.op_workload(i);
    elems += double(w.m) * double(w.k) + double(w.k) * double(w.n);
    if (verify && rank < 0) elems += double(w.m) * double(w.n);
  }
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    if (rank >= 0 && int(r) != rank) continue;
    for (const BufferDecl& d : plan.ranks[r].buffers) elems += double(d.rows) * double(d.cols);
    if (!verify || rank < 0) continue;
    double window = 0;  // WindowRelErrorFromInputs holds one window's reference at a time
    for (const OpOutput& o : plan.ranks[r].Outputs()) {
      window = std::max(window, double(o.window.rows) * double(o.window.cols));
    }
    elems += window;
  }
  const double chain = verify ? ChainBytes(plan) : 0;
  return elems * double(sizeof(float)) + chain;
}

Status CheckMemory(double bytes) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return Status::Ok();  // unknown: let the allocator decide
  const double budget = 0.7 * double(pages) * double(page);
  if (bytes <= budget) return Status::Ok();
  char msg[200];
  std::snprintf(msg, sizeof msg,
                "the cpu backend needs %.2f GiB (fp32 buffers of every rank plus A and B), more "
                "than 70%% of this machine's %.2f GiB of memory; use smaller M, N, K",
                bytes / double(1u << 30), double(pages) * double(page) / double(1u << 30));
  return Status::Invalid(msg);
}

}  // namespace braid::cpu
