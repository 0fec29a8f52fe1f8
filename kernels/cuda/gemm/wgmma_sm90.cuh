// The wgmma shapes the sm_90a kernel issues (m64n128k16 with bf16 or fp16
// in; m64n128k32 with FP8 E4M3 in; fp32 accumulate), wrapped as inline PTX: CUTLASS is not a dependency, and
// no CUDA header exposes wgmma. Compiled only for sm_90a (gemm_sm90.cu).
#pragma once

#include <cstdint>

namespace braid::cuda::gemm {

// wgmma m64n128k16, A and B from shared memory through descriptors, fp32
// accumulators d[0..63] (fragment_layout.h WgmmaAcc). scale_d = 0 overwrites
// d (the first k step of a tile), 1 accumulates. The trailing immediates:
// scale-a 1, scale-b 1, A not transposed (K-major), B transposed (stored
// MN-major: row-major K×N, N contiguous).
// One asm text and operand list for both input types (ITYPE: bf16 or f16):
// the 64 accumulators, then the two descriptors and the scale flag.
#define BRAID_WGMMA_M64N128K16(ITYPE)                                                                               \
  asm volatile(                                                                                                     \
      "{\n"                                                                                                         \
      ".reg .pred scale_d;\n"                                                                                       \
      "setp.ne.b32 scale_d, %66, 0;\n"                                                                              \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." ITYPE "." ITYPE                                                \
      " "                                                                                                           \
      "{"                                                                                                           \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                      \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                            \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                            \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"                              \
      "}, %64, %65, scale_d, 1, 1, 0, 1;\n"                                                                         \
      "}\n"                                                                                                         \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),      \
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),     \
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),     \
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),     \
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),     \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),     \
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                   \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));

template <int D>
__device__ __forceinline__ void Wgmma128(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  if constexpr (D == 0) {
    BRAID_WGMMA_M64N128K16("bf16")
  } else {
    BRAID_WGMMA_M64N128K16("f16")
  }
}

#undef BRAID_WGMMA_M64N128K16

// wgmma m64n128k32 with FP8 E4M3 A and B, both K-major (8-bit wgmma has no
// transpose immediates), fp32 accumulators as above.
__device__ __forceinline__ void Wgmma128E4m3(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred scale_d;\n"
      "setp.ne.b32 scale_d, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, scale_d, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// Keeps the compiler from moving reads or writes of the accumulators across
// the asynchronous wgmma that owns them (they are in flight until
// wgmma.wait_group says otherwise).
__device__ __forceinline__ void PinAccumulators(float (&d)[64]) {
  for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

}  // namespace braid::cuda::gemm
