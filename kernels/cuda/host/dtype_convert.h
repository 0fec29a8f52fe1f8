// fp32 <-> bf16 / fp16 on the host (round to nearest even): inputs go to the
// device in the workload's dtype, outputs come back as fp32, and the fake
// kernels compute with the same rounding a GPU applies when storing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "braid/workload.h"

namespace braid::cuda {

uint16_t FloatToBf16(float f);
float Bf16ToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);

// n elements.
void StoreAs(DType dtype, const float* src, size_t n, void* dst);
void LoadFrom(DType dtype, const void* src, size_t n, float* dst);
// One element.
float LoadOne(DType dtype, const void* p, size_t i);
void StoreOne(DType dtype, float v, void* p, size_t i);

}  // namespace braid::cuda
