#include "block_inputs.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/cpu_verify.h"

namespace braid::cpu {

namespace {

enum Linear { kQkv, kOutProj, kFc1, kFc2, kLinears };
constexpr std::array<std::string_view, kLinears> kLinearNames = {"qkv", "out_proj", "fc1", "fc2"};

bool IsColumn(int linear) { return linear == kQkv || linear == kFc1; }

// One linear's GEMM ops in one part: Plan::ops indices, -1 where absent.
struct LinearOps {
  int fprop = -1, dgrad = -1, wgrad = -1;
};
using Block = std::array<LinearOps, kLinears>;

// The slot of an op named "qkv", "fc1.dgrad" or "out_proj.part1" (the names
// the layer planners give); null for any other name, which then keeps its
// random inputs.
int* SlotOf(Block& block, std::string_view name) {
  const size_t dot = name.find('.');
  const std::string_view linear = name.substr(0, dot);
  std::string_view pass = dot == std::string_view::npos ? "" : name.substr(dot + 1);
  if (pass.starts_with("part")) pass = "";  // iso: a forward op's sequence part
  const auto it = std::find(kLinearNames.begin(), kLinearNames.end(), linear);
  if (it == kLinearNames.end()) return nullptr;
  LinearOps& ops = block[size_t(it - kLinearNames.begin())];
  if (pass.empty() || pass == "fprop") return &ops.fprop;
  if (pass == "dgrad") return &ops.dgrad;
  if (pass == "wgrad") return &ops.wgrad;
  return nullptr;
}

HostMatrix Transposed(const HostMatrix& m) {
  HostMatrix t(m.cols, m.rows);
  for (int64_t i = 0; i < m.rows; ++i) {
    const float* row = m.row(i);
    for (int64_t j = 0; j < m.cols; ++j) t.data[size_t(j * m.rows + i)] = row[j];
  }
  return t;
}

// x + y; empty (no link) when their shapes differ.
HostMatrix Sum(const HostMatrix& x, HostMatrix y) {
  if (x.rows != y.rows || x.cols != y.cols) return {};
  for (size_t i = 0; i < y.data.size(); ++i) y.data[i] += x.data[i];
  return y;
}

// Replaces an op's input by `value` where it has the input's shape (the op's
// M×K or K×N); otherwise the input keeps its random data.
bool Put(HostMatrix& dst, HostMatrix value) {
  if (value.rows != dst.rows || value.cols != dst.cols || value.rows == 0) return false;
  dst = std::move(value);
  return true;
}

// fc2's input h from fc1's output y, the activation as identity. A gated
// MLP's fc1 has 2·ffn columns: rank r's shard [r·2f/P, (r+1)·2f/P) holds its
// gate then its up part (Megatron keeps a rank's halves together), so
// h[:, r·f/P + j] = y[:, r·2f/P + j] + y[:, r·2f/P + f/P + j]. Empty where
// fc1's columns admit neither.
HostMatrix Activation(HostMatrix y, int64_t ffn, int p) {
  if (y.cols == ffn) return y;
  if (y.cols != 2 * ffn || ffn % p != 0) return {};
  const int64_t share = ffn / p;
  HostMatrix h(y.rows, ffn);
  for (int64_t i = 0; i < y.rows; ++i) {
    const float* in = y.row(i);
    float* out = h.row(i);
    for (int r = 0; r < p; ++r) {
      const float* gate = in + 2 * r * share;
      for (int64_t j = 0; j < share; ++j) out[r * share + j] = gate[j] + gate[share + j];
    }
  }
  return h;
}

// The backward of Activation: fc1's dY gets dH in both halves.
HostMatrix ActivationBackward(HostMatrix dh, int64_t fc1_n, int p) {
  if (fc1_n == dh.cols) return dh;
  const int64_t ffn = dh.cols;
  if (fc1_n != 2 * ffn || ffn % p != 0) return {};
  const int64_t share = ffn / p;
  HostMatrix dy(dh.rows, fc1_n);
  for (int64_t i = 0; i < dh.rows; ++i) {
    const float* in = dh.row(i);
    float* out = dy.row(i);
    for (int r = 0; r < p; ++r) {
      std::copy(in + r * share, in + (r + 1) * share, out + 2 * r * share);
      std::copy(in + r * share, in + (r + 1) * share, out + 2 * r * share + share);
    }
  }
  return dy;
}

void ChainPart(const Block& blk, int p, RunInputs& in) {
  std::vector<HostMatrix>& a = in.a;
  std::vector<HostMatrix>& b = in.b;
  const LinearOps &q = blk[kQkv], &o = blk[kOutProj], &f1 = blk[kFc1], &f2 = blk[kFc2];
  // Forward: fc1.X = x + out_proj's Y, fc2.X = fc1's Y through the activation.
  if (q.fprop >= 0 && o.fprop >= 0 && f1.fprop >= 0 &&
      Put(a[size_t(f1.fprop)], Sum(a[size_t(q.fprop)], ReferenceGemm(a[size_t(o.fprop)], b[size_t(o.fprop)])))) {
    ++in.forward_links;
  }
  if (f1.fprop >= 0 && f2.fprop >= 0 &&
      Put(a[size_t(f2.fprop)],
          Activation(ReferenceGemm(a[size_t(f1.fprop)], b[size_t(f1.fprop)]), a[size_t(f2.fprop)].cols, p))) {
    ++in.forward_links;
  }
  // Every dgrad multiplies by its layer's Wᵀ; the chain below needs them.
  for (const LinearOps& l : blk) {
    if (l.fprop >= 0 && l.dgrad >= 0) Put(b[size_t(l.dgrad)], Transposed(b[size_t(l.fprop)]));
  }
  // Backward: fc1.dY = fc2's dX, out_proj.dY = dOut + fc1's dX.
  if (f2.dgrad >= 0 && f1.dgrad >= 0 &&
      Put(a[size_t(f1.dgrad)],
          ActivationBackward(ReferenceGemm(a[size_t(f2.dgrad)], b[size_t(f2.dgrad)]), a[size_t(f1.dgrad)].cols, p))) {
    ++in.backward_links;
  }
  if (f2.dgrad >= 0 && f1.dgrad >= 0 && o.dgrad >= 0 &&
      Put(a[size_t(o.dgrad)], Sum(a[size_t(f2.dgrad)], ReferenceGemm(a[size_t(f1.dgrad)], b[size_t(f1.dgrad)])))) {
    ++in.backward_links;
  }
  // Every wgrad multiplies its layer's X and dY, now final.
  for (int i = 0; i < kLinears; ++i) {
    const LinearOps& l = blk[size_t(i)];
    if (l.wgrad < 0) continue;
    HostMatrix& xs = IsColumn(i) ? a[size_t(l.wgrad)] : b[size_t(l.wgrad)];   // Xᵀ or X
    HostMatrix& dys = IsColumn(i) ? b[size_t(l.wgrad)] : a[size_t(l.wgrad)];  // dY or dYᵀ
    if (l.fprop >= 0) Put(xs, IsColumn(i) ? Transposed(a[size_t(l.fprop)]) : a[size_t(l.fprop)]);
    if (l.dgrad >= 0) Put(dys, IsColumn(i) ? a[size_t(l.dgrad)] : Transposed(a[size_t(l.dgrad)]));
  }
}

}  // namespace

void ChainBlock(const Plan& plan, RunInputs& in) {
  if (!plan.is_layer() || in.a.size() != plan.ops.size() || in.b.size() != plan.ops.size()) return;
  std::map<int, Block> parts;  // by PlanOp::part (0 unless iso)
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    if (!op.gemm) continue;
    int* slot = SlotOf(parts[op.part], op.name);
    if (slot != nullptr && *slot < 0) *slot = int(i);
  }
  if (parts.empty()) return;
  // One block: every iso part multiplies part 0's weights.
  const Block& first = parts.begin()->second;
  for (auto it = std::next(parts.begin()); it != parts.end(); ++it) {
    for (int l = 0; l < kLinears; ++l) {
      const int from = first[size_t(l)].fprop, to = it->second[size_t(l)].fprop;
      if (from >= 0 && to >= 0) Put(in.b[size_t(to)], in.b[size_t(from)]);
    }
  }
  for (const auto& [part, blk] : parts) ChainPart(blk, plan.tp(), in);
}

std::string BlockNote(const RunInputs& in) {
  if (in.forward_links + in.backward_links == 0) return "";
  const bool backward = in.backward_links > 0;
  return std::string("verified against one fp32 reference forward") + (backward ? " and backward" : "") +
         " of the block (norms and the activation as identity, a gated MLP's gate and up summed, " +
         (backward ? "residuals added, " : "the residual added, ") +
         (backward ? "attention's output and input gradient random" : "attention's output random") +
         "; links between linears: " + std::to_string(in.forward_links) + " forward, " +
         std::to_string(in.backward_links) +
         " backward): each rank loads its windows of those tensors; ops pass no data at run time";
}

double ChainBytes(const Plan& plan) {
  double largest = 0;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (!plan.ops[i].gemm) continue;
    const Workload& w = plan.ops[i].workload;
    largest = std::max({largest, double(w.m) * double(w.n), double(w.m) * double(w.k), double(w.k) * double(w.n)});
  }
  return 2 * largest * double(sizeof(float));
}

}  // namespace braid::cpu
