// The frameworks' communication kernels (braid/comm_kernels.h): each
// library's names as its sources give them and Kineto demangles them are
// communication of the right pattern; look-alikes are not; Braid's own
// event kinds count them while HTA's figures keep HTA's rules; device-to-
// device copies become communication only beside a framework's kernels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/comm_kernels.h"
#include "braid/hta.h"

namespace braid {
namespace {

struct Case {
  const char* name;
  CommLibrary library;
  CommPattern pattern;
  bool multimem;
};

TEST(CommKernels, EachFrameworksNamesAreCommunicationOfTheirPattern) {
  const Case cases[] = {
      // TransformerEngine userbuffers.
      {"kuserbuffers_pushsend(int*, int*, int4*, int4*, int)", CommLibrary::kTeUserbuffers, CommPattern::kP2p, false},
      {"kuserbuffers_pushrecv(int, int, int*, int*, int4*, int4*, int, unsigned long)", CommLibrary::kTeUserbuffers,
       CommPattern::kP2p, false},
      {"kuserbuffers_pushsendrecv_multiatomic(int*, int*, int4*, int4*, int)", CommLibrary::kTeUserbuffers,
       CommPattern::kP2p, false},
      {"void userbuffers_fp16_sum_inplace_gpu_rr_rs_oop<8>(int, int, int, int, int, int, int, void**, int, void*, "
       "int, int, unsigned long)",
       CommLibrary::kTeUserbuffers, CommPattern::kReduceScatter, false},
      {"void userbuffers_fp16_sum_inplace_gpu_rr_rs_oop_fp8<4, __nv_fp8_e4m3>(int)", CommLibrary::kTeUserbuffers,
       CommPattern::kReduceScatter, false},
      {"void userbuffers_fp16_sum_inplace_gpu_mc_rs<8>(int)", CommLibrary::kTeUserbuffers, CommPattern::kReduceScatter,
       true},
      {"void userbuffers_fp16_sum_inplace_gpu_rw_ag<4>(int)", CommLibrary::kTeUserbuffers, CommPattern::kAllGather,
       false},
      {"void userbuffers_fp16_sum_inplace_gpu_mc_ag<2>(int)", CommLibrary::kTeUserbuffers, CommPattern::kAllGather,
       true},
      {"void userbuffers_fp16_sum_inplace_gpu_rr<4>(int)", CommLibrary::kTeUserbuffers, CommPattern::kAllReduce, false},
      {"void reduce_bf16_cuda<32>(void*, void*, int, int, int)", CommLibrary::kTeUserbuffers, CommPattern::kReduce,
       false},
      {"producer_kernel(void*, int, int)", CommLibrary::kTeUserbuffers, CommPattern::kBarrier, false},
      // PyTorch symmetric memory.
      {"c10d::symmetric_memory::barrier_kernel(unsigned int**, int, int, int, unsigned long)",
       CommLibrary::kTorchSymmMem, CommPattern::kBarrier, false},
      {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long)",
       CommLibrary::kTorchSymmMem, CommPattern::kAllReduce, true},
      {"void (anonymous namespace)::two_shot_all_reduce_kernel<float, 16, 8, true, false>(float*)",
       CommLibrary::kTorchSymmMem, CommPattern::kAllReduce, false},
      {"void (anonymous namespace)::multimem_all_gather_kernel<16>(char*)", CommLibrary::kTorchSymmMem,
       CommPattern::kAllGather, true},
      // NCCL, regular and symmetric kernels.
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CommLibrary::kNccl, CommPattern::kAllGather,
       false},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CommLibrary::kNccl,
       CommPattern::kReduceScatter, false},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", CommLibrary::kNccl,
       CommPattern::kAllReduce, false},
      {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", CommLibrary::kNccl, CommPattern::kP2p, false},
      {"ncclSymkDevKernel_AllGather_STMC(ncclSymkDevWorkArgs4K)", CommLibrary::kNccl, CommPattern::kAllGather, true},
      {"ncclSymkDevKernel_ReduceScatter_LD_sum_bf16(ncclSymkDevWorkArgs4K)", CommLibrary::kNccl,
       CommPattern::kReduceScatter, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<CommKind> k = ClassifyComm(c.name, true);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->library, c.library);
    EXPECT_EQ(k->pattern, c.pattern);
    EXPECT_EQ(k->multimem, c.multimem);
    EXPECT_EQ(ImportedGpuKind(true, c.name), EventKind::kComm);
    EXPECT_FALSE(IsGemmKernelName(c.name));
  }
  const std::optional<CommKind> peer = ClassifyComm("Memcpy PtoP (Device -> Device)", false);
  ASSERT_TRUE(peer.has_value());
  EXPECT_EQ(peer->library, CommLibrary::kCopyEngine);
  EXPECT_EQ(peer->pattern, CommPattern::kP2p);
  EXPECT_EQ(ImportedGpuKind(false, "Memcpy PtoP (Device -> Device)"), EventKind::kComm);
}

TEST(CommKernels, LookAlikesAreNotCommunication) {
  for (const char* name : {
           "void my::producer_kernel<int>(int*)",    // TE's are global: a namespaced one is the user's
           "void app::reduce_bf16_cuda(float*)",     // likewise
           "void fancy_barrier_kernel(int*)",        // identifiers match whole, not in part
           "my_kuserbuffers_pushsend_wrapper(int)",  // likewise
           "barrier_kernel(int*)",                   // PyTorch's sits in c10d::symmetric_memory
           "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)",
           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
       }) {
    EXPECT_FALSE(ClassifyComm(name, true).has_value()) << name;
  }
  EXPECT_FALSE(ClassifyComm("Memcpy DtoD (Device -> Device)", false).has_value());
  EXPECT_EQ(ImportedGpuKind(false, "Memcpy DtoD (Device -> Device)"), EventKind::kCopy);
}

TEST(CommKernels, HtaFiguresKeepHtasOwnRules) {
  // HTA counts only NCCL-like names as communication: TE's kernels are its
  // computation, a peer copy its memory. Braid's kinds differ; HTA's do not.
  EXPECT_EQ(ClassifyHtaKernel("kuserbuffers_pushsend(int*, int*, int4*, int4*, int)"), HtaKernelType::kCompute);
  EXPECT_EQ(ClassifyHtaKernel("Memcpy PtoP (Device -> Device)"), HtaKernelType::kMemory);
  EXPECT_EQ(ClassifyHtaKernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            HtaKernelType::kComm);
}

TEST(CommKernels, GemmKernelNames) {
  for (const char* name : {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_kernel__5x_cublas",
                           "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_nn",
                           "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(Params)",
                           "triton_tem_fused_matmul_0", "qkv.gemm"}) {
    EXPECT_TRUE(IsGemmKernelName(name)) << name;
  }
  for (const char* name : {"flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>", "vectorized_layer_norm_kernel",
                           "void userbuffers_fp16_sum_inplace_gpu_rr_rs<4>(int)",
                           "void fbgemm_gpu::_offsets_range_cuda_kernel<long>(long, long, long const*, long*)"}) {
    EXPECT_FALSE(IsGemmKernelName(name)) << name;
  }
}

Event Copy(const char* name, EventKind kind) {
  Event e;
  e.name = name;
  e.kind = kind;
  return e;
}

TEST(CommKernels, DeviceCopiesAreCommunicationOnlyBesideAFrameworksKernels) {
  std::vector<Event> plain = {Copy("Memcpy DtoD (Device -> Device)", EventKind::kCopy),
                              Copy("ncclDevKernel_AllGather_RING_LL(x)", EventKind::kComm)};
  MarkFrameworkPeerCopies(&plain);
  EXPECT_EQ(plain[0].kind, EventKind::kCopy);  // NCCL moves its own data
  std::vector<Event> te = plain;
  te.push_back(Copy("kuserbuffers_pushsend(int*, int*, int4*, int4*, int)", EventKind::kComm));
  te.push_back(Copy("Memcpy HtoD (Pinned -> Device)", EventKind::kCopy));
  MarkFrameworkPeerCopies(&te);
  EXPECT_EQ(te[0].kind, EventKind::kComm);
  EXPECT_EQ(te[3].kind, EventKind::kCopy);  // a host copy never is
  std::vector<Event> torch = {Copy("Memcpy DtoD (Device -> Device)", EventKind::kCopy),
                              Copy("c10d::symmetric_memory::barrier_kernel(unsigned int**)", EventKind::kComm)};
  MarkFrameworkPeerCopies(&torch);
  EXPECT_EQ(torch[0].kind, EventKind::kComm);
}

TEST(CommKernels, NamesOfPatternsAndLibraries) {
  EXPECT_EQ(CommPatternName(CommPattern::kReduceScatter), "reduce_scatter");
  EXPECT_EQ(CommLibraryName(CommLibrary::kTeUserbuffers), "te_userbuffers");
  EXPECT_EQ(CommLibraryName(CommLibrary::kTorchSymmMem), "torch_symm_mem");
  EXPECT_EQ(CommLibraryName(CommLibrary::kCopyEngine), "copy_engine");
}

}  // namespace
}  // namespace braid
