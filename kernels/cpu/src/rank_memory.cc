#include "rank_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

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

double RunBytes(const Plan& plan, bool verify) {
  // double: the sum of many large buffers must not overflow before the check.
  double elems = 0;
  const int ops = plan.is_layer() ? int(plan.ops.size()) : 1;
  for (int i = 0; i < ops; ++i) {
    if (plan.is_layer() && !plan.ops[size_t(i)].gemm) continue;
    const Workload& w = plan.op_workload(i);
    elems += double(w.m) * double(w.k) + double(w.k) * double(w.n) + (verify ? double(w.m) * double(w.n) : 0.0);
  }
  for (const RankPlan& rp : plan.ranks) {
    for (const BufferDecl& d : rp.buffers) elems += double(d.rows) * double(d.cols);
  }
  return elems * double(sizeof(float));
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
