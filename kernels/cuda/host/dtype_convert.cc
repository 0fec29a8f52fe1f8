#include "dtype_convert.h"

#include <cmath>
#include <cstring>

#include "braid/fp8.h"

namespace braid::cuda {

uint16_t FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);  // stay a (quiet) NaN
  u += 0x7fff + ((u >> 16) & 1);                         // round to nearest even
  return uint16_t(u >> 16);
}

float Bf16ToFloat(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t FloatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000;
  const uint32_t abs = u & 0x7fffffff;
  if (abs > 0x7f800000) return uint16_t(sign | 0x7e00);   // NaN
  if (abs >= 0x477ff000) return uint16_t(sign | 0x7c00);  // rounds past 65504: inf
  if (abs < 0x38800000) {                                 // below 2^-14: subnormal or zero
    // Scale so the value's integer part is the subnormal mantissa; the FPU rounds to even.
    float mag;
    std::memcpy(&mag, &abs, 4);
    return uint16_t(sign | uint32_t(std::nearbyint(mag * 16777216.0f)));
  }
  const uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return uint16_t(sign | ((rounded - 0x38000000) >> 13));
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = float(mant) / 16777216.0f;  // subnormal: mant · 2^-24
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u |= sign;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const uint32_t u = exp == 31 ? (sign | 0x7f800000 | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&f, &u, 4);
  return f;
}

float LoadOne(DType dtype, const void* p, size_t i) {
  switch (dtype) {
    case DType::kFp32:
      return static_cast<const float*>(p)[i];
    case DType::kBf16:
      return Bf16ToFloat(static_cast<const uint16_t*>(p)[i]);
    case DType::kFp16:
      return HalfToFloat(static_cast<const uint16_t*>(p)[i]);
    case DType::kFp8E4m3:
    case DType::kFp8E5m2:  // unscaled: the scale is the caller's
      return Fp8ToFloat(Fp8FormatOf(dtype), static_cast<const uint8_t*>(p)[i]);
  }
  return 0;
}

void StoreOne(DType dtype, float v, void* p, size_t i) {
  switch (dtype) {
    case DType::kFp32:
      static_cast<float*>(p)[i] = v;
      return;
    case DType::kBf16:
      static_cast<uint16_t*>(p)[i] = FloatToBf16(v);
      return;
    case DType::kFp16:
      static_cast<uint16_t*>(p)[i] = FloatToHalf(v);
      return;
    case DType::kFp8E4m3:
    case DType::kFp8E5m2:
      static_cast<uint8_t*>(p)[i] = FloatToFp8(Fp8FormatOf(dtype), v);
      return;
  }
}

void StoreAs(DType dtype, const float* src, size_t n, void* dst) {
  for (size_t i = 0; i < n; ++i) StoreOne(dtype, src[i], dst, i);
}

void LoadFrom(DType dtype, const void* src, size_t n, float* dst) {
  for (size_t i = 0; i < n; ++i) dst[i] = LoadOne(dtype, src, i);
}

}  // namespace braid::cuda
