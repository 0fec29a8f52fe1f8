#include "braid/gemm_keys.h"

#include <array>
#include <cctype>
#include <utility>

#include "braid/gemm_overlap.h"

namespace braid {

namespace {

constexpr std::string_view kTeNvtx = "te_nvtx";
constexpr std::string_view kMegatronNvtx = "megatron_nvtx";

// TE's module ranges: "transformer_engine.<Module>.<forward|backward>.<ub_name>.<part>".
constexpr std::array<std::string_view, 3> kTeModules = {
    "transformer_engine._Linear.", "transformer_engine._LayerNormLinear.", "transformer_engine._LayerNormMLP."};
constexpr std::array<std::string_view, 4> kUbNames = {"qkv", "proj", "fc1", "fc2"};

std::string TeKey(std::string_view label) {
  std::string_view rest;
  for (std::string_view m : kTeModules) {
    if (label.starts_with(m)) rest = label.substr(m.size());
  }
  if (rest.empty()) return "";
  bool forward = false;
  if (rest.starts_with("forward.")) {
    forward = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("backward.")) {
    rest.remove_prefix(9);
  } else {
    return "";
  }
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return "";
  const std::string_view ub = rest.substr(0, dot), part = rest.substr(dot + 1);
  bool known = false;
  for (std::string_view u : kUbNames) known = known || u == ub;
  if (!known) return "";
  if (forward && part == "gemm") return std::string(ub) + "_fprop";
  if (!forward && part == "dgrad_gemm") return std::string(ub) + "_dgrad";
  if (!forward && part == "wgrad_gemm") return std::string(ub) + "_wgrad";
  return "";
}

// Megatron-LM's ranges around its linear layers' forward calls.
struct MegatronRange {
  std::string_view label;
  std::string_view key;
};
constexpr std::array<MegatronRange, 4> kMegatronRanges = {{
    {"megatron.core.transformer.attention.forward.qkv", "qkv_fprop"},
    {"megatron.core.transformer.attention.forward.linear_proj", "proj_fprop"},
    {"megatron.core.transformer.mlp.forward.linear_fc1", "fc1_fprop"},
    {"megatron.core.transformer.mlp.forward.linear_fc2", "fc2_fprop"},
}};

struct OpShapeRule {
  std::string_view name;
  int a = 0, b = 1;          // the Input Dims entries of A and B
  bool b_is_weight = false;  // B given as [n, k] (linear's weight)
  bool b_list = false;       // B is the first of a list of tensors
  bool m_is_shard = false;
};
constexpr std::array<OpShapeRule, 9> kOpRules = {{
    {"aten::mm", 0, 1},
    {"aten::addmm", 1, 2},
    {"aten::matmul", 0, 1},
    {"aten::linear", 0, 1, true},
    {"aten::_scaled_mm", 0, 1},
    {"symm_mem::fused_all_gather_matmul", 0, 1, false, true, true},
    {"symm_mem::fused_all_gather_scaled_matmul", 0, 1, false, true, true},
    {"symm_mem::fused_matmul_reduce_scatter", 0, 1},
    {"symm_mem::fused_scaled_matmul_reduce_scatter", 0, 1},
}};

const OpShapeRule* RuleOf(std::string_view op) {
  for (const OpShapeRule& r : kOpRules) {
    if (r.name == op) return &r;
  }
  return nullptr;
}

// One entry of Input Dims: a tensor's sizes, or a list of tensors' sizes.
struct DimsEntry {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> list;
};

// Nested arrays of non-negative integers, at most three deep, no spaces
// (CpuOpMarkerName removed them).
class DimsParser {
 public:
  explicit DimsParser(std::string_view text) : s_(text) {}

  std::optional<std::vector<DimsEntry>> Parse() {
    std::vector<DimsEntry> out;
    if (!Eat('[')) return std::nullopt;
    if (Eat(']')) return At(s_.size()) ? std::optional(out) : std::nullopt;
    do {
      DimsEntry e;
      if (!Eat('[')) return std::nullopt;
      if (Peek('[')) {
        do {
          std::vector<int64_t> sizes;
          if (!Sizes(&sizes)) return std::nullopt;
          e.list.push_back(std::move(sizes));
        } while (Eat(','));
        if (!Eat(']')) return std::nullopt;
      } else {
        --pos_;  // Sizes reads its own '['
        if (!Sizes(&e.sizes)) return std::nullopt;
      }
      out.push_back(std::move(e));
    } while (Eat(','));
    if (!Eat(']') || !At(s_.size())) return std::nullopt;
    return out;
  }

 private:
  bool Sizes(std::vector<int64_t>* out) {
    if (!Eat('[')) return false;
    if (Eat(']')) return true;
    do {
      int64_t v = 0;
      if (!Int(&v)) return false;
      out->push_back(v);
    } while (Eat(','));
    return Eat(']');
  }
  bool Int(int64_t* v) {
    const size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      if (pos_ - start >= 15) return false;  // below 10^15: products stay checked below
      *v = *v * 10 + (s_[pos_++] - '0');
    }
    return pos_ > start;
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool At(size_t end) const { return pos_ == end; }

  std::string_view s_;
  size_t pos_ = 0;
};

// The product of sizes[0 .. count), or nullopt on overflow or a zero.
std::optional<int64_t> Product(const std::vector<int64_t>& sizes, size_t count) {
  int64_t p = 1;
  for (size_t i = 0; i < count; ++i) {
    if (sizes[i] <= 0 || __builtin_mul_overflow(p, sizes[i], &p)) return std::nullopt;
  }
  return p;
}

bool SameShape(const TracedGemmShape& t, const KeyShape& s) {
  return t.k == s.k && ((t.m == s.m && t.n == s.n) || (t.m == s.n && t.n == s.m));
}

std::string ShapeText(const TracedGemmShape& t) {
  return std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k);
}

}  // namespace

LabelKey GemmKeyOfLabel(std::string_view label) {
  if (std::string key = TeKey(label); !key.empty()) return {std::move(key), std::string(kTeNvtx)};
  for (const MegatronRange& r : kMegatronRanges) {
    if (label == r.label) return {std::string(r.key), std::string(kMegatronNvtx)};
  }
  return {};
}

bool IsGemmCpuOpName(std::string_view name) { return RuleOf(name) != nullptr; }

std::string CpuOpMarkerName(std::string_view op, std::string_view input_dims_json) {
  std::string dims;
  for (char c : input_dims_json) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (dims.size() >= kMaxInputDimsText) return std::string(op);
    dims += c;
  }
  if (dims.empty() || !DimsParser(dims).Parse()) return std::string(op);
  return std::string(op) + " " + dims;
}

std::optional<TracedGemmShape> GemmShapeOfCpuOp(std::string_view marker) {
  const size_t space = marker.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const OpShapeRule* rule = RuleOf(marker.substr(0, space));
  if (rule == nullptr) return std::nullopt;
  const std::optional<std::vector<DimsEntry>> dims = DimsParser(marker.substr(space + 1)).Parse();
  if (!dims || int(dims->size()) <= std::max(rule->a, rule->b)) return std::nullopt;
  const std::vector<int64_t>& a = (*dims)[size_t(rule->a)].sizes;
  const DimsEntry& be = (*dims)[size_t(rule->b)];
  const std::vector<int64_t>* b = &be.sizes;
  if (rule->b_list) {
    if (be.list.empty()) return std::nullopt;
    b = &be.list.front();
  }
  // A: [..., m, k] rows flattened; B: [k, n] (linear's weight [n, k]).
  if (a.size() < 2 || b->size() != 2) return std::nullopt;
  const std::optional<int64_t> m = Product(a, a.size() - 1);
  const int64_t k = a.back();
  const int64_t bk = rule->b_is_weight ? (*b)[1] : (*b)[0];
  const int64_t n = rule->b_is_weight ? (*b)[0] : (*b)[1];
  if (!m || k <= 0 || n <= 0 || bk != k) return std::nullopt;
  return TracedGemmShape{*m, n, k, rule->m_is_shard};
}

namespace {

// Why a GEMM without a range has no shape to map by.
std::string WhyNoShape(const GemmOverlapRow& row) {
  if (row.op.empty()) return "no NVTX range names it and no PyTorch op with Input Dims launched it";
  return "its op " + row.op.substr(0, row.op.find(' ')) + " recorded no shape";
}

}  // namespace

void AssignKeysByShape(GemmOverlapReport* report, const std::vector<KeyShape>& shapes, int tp) {
  for (GemmOverlapRow& row : report->rows) {
    if (!row.key.empty()) continue;
    const std::optional<TracedGemmShape> shape = GemmShapeOfCpuOp(row.op);
    if (!shape) {
      row.unmapped_why = WhyNoShape(row);
      continue;
    }
    TracedGemmShape s = *shape;
    if (s.m_is_shard && __builtin_mul_overflow(s.m, int64_t(std::max(tp, 1)), &s.m)) {
      row.unmapped_why = "its shape overflows";
      continue;
    }
    std::vector<std::string> keys;
    for (const KeyShape& k : shapes) {
      if (SameShape(s, k)) keys.push_back(k.key);
    }
    if (keys.size() == 1) {
      row.key = keys.front();
      row.key_source = "shape";
      row.unmapped_why.clear();
    } else if (keys.empty()) {
      row.unmapped_why = "its shape " + ShapeText(s) + " (m x n x k) is no TP GEMM of the block given";
    } else {
      std::string both;
      for (const std::string& k : keys) both += (both.empty() ? "" : ", ") + k;
      row.unmapped_why = "its shape " + ShapeText(s) + " fits several keys: " + both;
    }
  }
}

void ExplainUnmapped(GemmOverlapReport* report) {
  for (GemmOverlapRow& row : report->rows) {
    if (!row.key.empty() || !row.unmapped_why.empty()) continue;
    if (GemmShapeOfCpuOp(row.op)) {
      row.unmapped_why = "no NVTX range names it; its shape maps with --model, --seq and --tp";
    } else {
      row.unmapped_why = WhyNoShape(row);
    }
  }
}

}  // namespace braid
