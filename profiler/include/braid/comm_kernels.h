// Communication as the frameworks run it: which GPU kernel and memcpy names
// in a user's trace are communication, of which pattern and from which
// library. HolisticTraceAnalysis counts only NCCL's (braid/hta.h, whose
// figures stay HTA's own); Braid's own metrics of an imported run count
// TransformerEngine's userbuffers kernels, PyTorch's symmetric-memory
// kernels, NVLS (multimem) kernels and copy-engine peer copies too, so that
// the overlap those produce is seen. One table (comm_kernels.cc), each row
// naming the source file and revision its names were read from.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "braid/event.h"

namespace braid {

enum class CommPattern {
  kAllGather,
  kReduceScatter,
  kAllReduce,
  kAllToAll,
  kP2p,      // a send, receive or put to one peer (a ring step, a copy)
  kBarrier,  // flags and signals only: no payload
  kReduce,   // a local reduction of partials that landed (TE's pipeline)
  kOther,    // communication whose pattern the name does not say
};

enum class CommLibrary {
  kNccl,
  kTeUserbuffers,  // TransformerEngine's comm+GEMM overlap (userbuffers)
  kTorchSymmMem,   // PyTorch SymmetricMemory and async tensor parallelism
  kCublasMp,
  kCopyEngine,  // a memcpy between two devices: no SM runs it
  kOther,       // an event a backend marked as communication, of no library above
};

std::string_view CommPatternName(CommPattern p);  // "all_gather", "reduce_scatter", ...
std::string_view CommLibraryName(CommLibrary l);  // "nccl", "te_userbuffers", ...

struct CommKind {
  CommLibrary library = CommLibrary::kNccl;
  CommPattern pattern = CommPattern::kOther;
  bool multimem = false;  // NVLS: NVSwitch multicast (multimem) instructions
};

// The communication a GPU event is, by its name as a Kineto or Nsight
// Systems trace gives it (a kernel's demangled name, "void f<...>(...)" or
// "f"; a memcpy's "Memcpy PtoP (Device -> Device)"); nullopt when it is not
// communication. Case sensitive, as the names are.
std::optional<CommKind> ClassifyComm(std::string_view name, bool is_kernel);

// One rank's imported events: where it runs a framework's peer-to-peer
// overlap (TE userbuffers or PyTorch symmetric-memory kernels), its
// device-to-device copies ("Memcpy DtoD") become communication too. Both
// frameworks move peers' data with cudaMemcpyAsync between a local and a
// peer-mapped buffer (TE's ring_exchange with use_ce, async-TP's copy_ of a
// peer's symmetric buffer), which CUPTI may name DtoD rather than PtoP;
// elsewhere a DtoD copy stays a copy.
void MarkFrameworkPeerCopies(std::vector<Event>* events);

// A GEMM kernel (cuBLAS / cuBLASLt / CUTLASS / nvjet names), not also
// communication.
bool IsGemmKernelName(std::string_view name);

}  // namespace braid
