// The table of communication kernels (braid/comm_kernels.h). Names were read
// from each framework's own sources; a kernel is matched by its identifier
// (the demangled name without "void", namespaces, template arguments and
// parameters), so that a user kernel that merely contains one of these words
// is not taken for communication.
//
// Sources:
//   TE   NVIDIA/TransformerEngine d0067d0da6cb01811b8072a7d304f0e00344ce2b,
//        transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers.cu
//        (kernels) and comm_gemm_overlap.cpp (which method launches which)
//   SM   pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/
//        CUDASymmetricMemoryOps.cu @ fd6c4b6ac131, CUDASymmetricMemory.cu @
//        029e4735242e, CUDASymmetricMemory-inl.cuh @ 05676925e0f5,
//        nvshmem_extension.cu @ 0047056e2d3a (each file's stored revision)
//   NCCL NVIDIA/nccl src/device/generate.py @ 081eafafc983 (ncclDevKernel_*),
//        src/device/symmetric/generate.py @ 045cdfb4fac0 (ncclSymkDevKernel_*)
//   CUPTI/Kineto memcpy names: pytorch/kineto libkineto/src/CuptiActivity.cpp
//        @ 08e9ed8fdea8 and cupti_strings.cpp @ 024cec71979e
//        ("Memcpy PtoP (Device -> Device)").
// cuBLASMp is closed source: its kernels' names are not in the table.
#include "braid/comm_kernels.h"

#include <array>
#include <cctype>

namespace braid {

std::string_view CommPatternName(CommPattern p) {
  switch (p) {
    case CommPattern::kAllGather:
      return "all_gather";
    case CommPattern::kReduceScatter:
      return "reduce_scatter";
    case CommPattern::kAllReduce:
      return "all_reduce";
    case CommPattern::kAllToAll:
      return "all_to_all";
    case CommPattern::kP2p:
      return "p2p";
    case CommPattern::kBarrier:
      return "barrier";
    case CommPattern::kReduce:
      return "reduce";
    case CommPattern::kOther:
      return "other";
  }
  return "?";
}

std::string_view CommLibraryName(CommLibrary l) {
  switch (l) {
    case CommLibrary::kNccl:
      return "nccl";
    case CommLibrary::kTeUserbuffers:
      return "te_userbuffers";
    case CommLibrary::kTorchSymmMem:
      return "torch_symm_mem";
    case CommLibrary::kCublasMp:
      return "cublasmp";
    case CommLibrary::kCopyEngine:
      return "copy_engine";
    case CommLibrary::kOther:
      return "other";
  }
  return "?";
}

namespace {

using L = CommLibrary;
using P = CommPattern;

// `needs`: a part the whole name must contain too; kGlobal: the identifier
// must have no namespace (TE's generically named kernels are global).
constexpr std::string_view kGlobal = "::";

struct Rule {
  std::string_view identifier;
  bool prefix;             // the identifier starts with it (else equals it)
  std::string_view needs;  // "" none, kGlobal, or a part of the whole name
  L library;
  P pattern;
  bool multimem;
};

// Order matters where prefixes nest: the first rule that matches wins.
constexpr std::array kRules{
    // TE userbuffers: ring_exchange's sends and receives (push path; pull
    // and the sendrecv variants for atomic GEMMs).
    Rule{"kuserbuffers_pushsend", true, "", L::kTeUserbuffers, P::kP2p, false},
    Rule{"kuserbuffers_pushrecv", false, "", L::kTeUserbuffers, P::kP2p, false},
    Rule{"kuserbuffers_pullsend", false, "", L::kTeUserbuffers, P::kP2p, false},
    Rule{"kuserbuffers_pullrecv", false, "", L::kTeUserbuffers, P::kP2p, false},
    // Bulk and pipeline reduce-scatters (rr: read-reduce; mc: NVLS multicast).
    Rule{"userbuffers_fp16_sum_inplace_gpu_rr_rs", true, "", L::kTeUserbuffers, P::kReduceScatter, false},
    Rule{"userbuffers_fp16_sum_inplace_gpu_mc_rs", true, "", L::kTeUserbuffers, P::kReduceScatter, true},
    // Bulk all-gathers (rw is the default, rr with use_rr_kernel).
    Rule{"userbuffers_fp16_sum_inplace_gpu_rw_ag", false, "", L::kTeUserbuffers, P::kAllGather, false},
    Rule{"userbuffers_fp16_sum_inplace_gpu_rr_ag", false, "", L::kTeUserbuffers, P::kAllGather, false},
    Rule{"userbuffers_fp16_sum_inplace_gpu_mc_ag", false, "", L::kTeUserbuffers, P::kAllGather, true},
    // All-reduces (defined; no overlap method launches them at that revision).
    Rule{"userbuffers_fp16_sum_inplace_gpu_rw", false, "", L::kTeUserbuffers, P::kAllReduce, false},
    Rule{"userbuffers_fp16_sum_inplace_gpu_rr", false, "", L::kTeUserbuffers, P::kAllReduce, false},
    Rule{"userbuffers_fp16_sum_inplace_gpu_mc", false, "", L::kTeUserbuffers, P::kAllReduce, true},
    // ring_exchange reduce-scatter's final sum of the partials that landed.
    Rule{"reduce_fp8_in_bf16_out_cuda", false, kGlobal, L::kTeUserbuffers, P::kReduce, false},
    Rule{"reduce_bf16_cuda", false, kGlobal, L::kTeUserbuffers, P::kReduce, false},
    // Flags and counters (atomic GEMM overlap, the P2P reduce-scatter's delay).
    Rule{"kuserbuffers_inc", false, kGlobal, L::kTeUserbuffers, P::kBarrier, false},
    Rule{"tiny_delay_kern", false, kGlobal, L::kTeUserbuffers, P::kBarrier, false},
    Rule{"producer_kernel", false, kGlobal, L::kTeUserbuffers, P::kBarrier, false},
    Rule{"consumer_kernel", false, kGlobal, L::kTeUserbuffers, P::kBarrier, false},
    Rule{"consumer_batch_kernel", false, kGlobal, L::kTeUserbuffers, P::kBarrier, false},
    Rule{"reset_counters_kernel", false, kGlobal, L::kTeUserbuffers, P::kBarrier, false},
    // PyTorch SymmetricMemory: barriers and signals (c10d::symmetric_memory).
    Rule{"barrier_kernel", false, "symmetric_memory", L::kTorchSymmMem, P::kBarrier, false},
    Rule{"multimem_barrier_kernel", false, "", L::kTorchSymmMem, P::kBarrier, true},
    Rule{"put_signal_kernel", false, "symmetric_memory", L::kTorchSymmMem, P::kBarrier, false},
    Rule{"wait_signal_kernel", false, "symmetric_memory", L::kTorchSymmMem, P::kBarrier, false},
    // Its collectives (one-shot, two-shot, NVLS multimem).
    Rule{"multimem_all_gather_kernel", false, "", L::kTorchSymmMem, P::kAllGather, true},
    Rule{"multimem_all_reduce_kernel", false, "", L::kTorchSymmMem, P::kAllReduce, true},
    Rule{"multimem_one_shot_all_reduce_kernel", false, "", L::kTorchSymmMem, P::kAllReduce, true},
    Rule{"multimem_one_shot_reduce_kernel", false, "", L::kTorchSymmMem, P::kAllReduce, true},
    Rule{"one_shot_all_reduce_kernel", false, "", L::kTorchSymmMem, P::kAllReduce, false},
    Rule{"two_shot_all_reduce_kernel", true, "", L::kTorchSymmMem, P::kAllReduce, false},
    // NVSHMEM all-to-alls (c10d::nvshmem_extension).
    Rule{"allToAllV", true, "nvshmem_extension", L::kTorchSymmMem, P::kAllToAll, false},
    Rule{"exchangeSplitAndOffset", true, "nvshmem_extension", L::kTorchSymmMem, P::kAllToAll, false},
};

// Where the qualified identifier ends: at the first '<' or '(' (template
// arguments may hold "::" of their own) that does not open "(anonymous
// namespace)".
size_t IdentifierEnd(std::string_view name) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  size_t from = 0;
  for (;;) {
    const size_t stop = name.find_first_of("<(", from);
    if (stop == std::string_view::npos || !name.substr(stop).starts_with(kAnonymous)) return stop;
    from = stop + kAnonymous.size();
  }
}

// "void ns::f<T, 8>(int*)" -> "f"; "(anonymous namespace)::g<...>(...)" -> "g".
std::string_view Identifier(std::string_view name) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  const size_t stop = IdentifierEnd(name);
  std::string_view head = stop == std::string_view::npos ? name : name.substr(0, stop);
  const size_t colon = head.rfind("::");
  if (colon != std::string_view::npos) head.remove_prefix(colon + 2);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  return head;
}

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Whether the identifier has a namespace or class before it.
bool Namespaced(std::string_view name) {
  const size_t stop = IdentifierEnd(name);
  return Contains(stop == std::string_view::npos ? name : name.substr(0, stop), "::");
}

// NCCL's kernels: ncclDevKernel_<Coll>_..., ncclKernel_<Coll>_... (older),
// ncclSymkDevKernel_<Coll>_<Algo>... (symmetric memory; MC algorithms are
// NVLS multimem). An NVLS collective of the regular kernels runs inside a
// kernel named RING_LL: its name cannot tell.
std::optional<CommKind> Nccl(std::string_view id) {
  const bool symk = id.starts_with("ncclSymkDevKernel_");
  if (!symk && !id.starts_with("ncclDevKernel_") && !id.starts_with("ncclKernel_")) return std::nullopt;
  CommKind k{L::kNccl, P::kOther, false};
  if (Contains(id, "AllGather")) {
    k.pattern = P::kAllGather;
  } else if (Contains(id, "ReduceScatter")) {
    k.pattern = P::kReduceScatter;
  } else if (Contains(id, "AllReduce")) {
    k.pattern = P::kAllReduce;
  } else if (Contains(id, "SendRecv") || Contains(id, "_Send") || Contains(id, "_Recv")) {
    k.pattern = P::kP2p;
  } else if (Contains(id, "AlltoAll") || Contains(id, "AllToAll")) {
    k.pattern = P::kAllToAll;
  }
  k.multimem = symk && (Contains(id, "MC_") || id.ends_with("MC"));
  return k;
}

}  // namespace

std::optional<CommKind> ClassifyComm(std::string_view name, bool is_kernel) {
  if (!is_kernel) {
    // A copy between two devices: the copy engine moves it, no SM.
    if (name.starts_with("Memcpy PtoP")) return CommKind{L::kCopyEngine, P::kP2p, false};
    return std::nullopt;
  }
  const std::string_view id = Identifier(name);
  if (std::optional<CommKind> k = Nccl(id)) return k;
  for (const Rule& r : kRules) {
    const bool hit = r.prefix ? id.starts_with(r.identifier) : id == r.identifier;
    if (!hit) continue;
    const bool needs_met = r.needs.empty() || (r.needs == kGlobal ? !Namespaced(name) : Contains(name, r.needs));
    if (needs_met) return CommKind{r.library, r.pattern, r.multimem};
  }
  return std::nullopt;
}

void MarkFrameworkPeerCopies(std::vector<Event>* events) {
  bool framework = false;
  for (const Event& e : *events) {
    if (e.kind != EventKind::kComm) continue;
    const std::optional<CommKind> k = ClassifyComm(e.name, true);
    if (k && (k->library == L::kTeUserbuffers || k->library == L::kTorchSymmMem)) {
      framework = true;
      break;
    }
  }
  if (!framework) return;
  for (Event& e : *events) {
    if (e.kind == EventKind::kCopy && std::string_view(e.name).starts_with("Memcpy DtoD")) e.kind = EventKind::kComm;
  }
}

bool IsGemmKernelName(std::string_view name) {
  if (ClassifyComm(name, true).has_value()) return false;
  // cuBLAS / cuBLASLt (sm90_xmma_gemm_*, ampere_*gemm*, nvjet_*, cublasLt::...),
  // CUTLASS (cutlass::Kernel<...gemm...>, cutlass_80_tensorop_*gemm*),
  // Triton-generated matmuls (*matmul*), Braid's own steps ("qkv.gemm").
  // A part counts where no letter runs into it ("s1688gemm", "_gemm",
  // "::GemmUniversal" do; "fbgemm_gpu" is FBGEMM's embedding kernels, not a GEMM).
  static constexpr std::array<std::string_view, 6> kParts = {"gemm", "Gemm", "GEMM", "nvjet", "xmma", "matmul"};
  for (std::string_view p : kParts) {
    for (size_t at = name.find(p); at != std::string_view::npos; at = name.find(p, at + 1)) {
      if (at == 0 || !std::isalpha(static_cast<unsigned char>(name[at - 1]))) return true;
    }
  }
  return false;
}

}  // namespace braid
