// FP8 numbers, bit-exact: the two OCP FP8 (OFP8) formats as NVIDIA Hopper and
// TransformerEngine use them, decoded, encoded (round to nearest even,
// saturating) and quantized with a per-tensor scale the way TransformerEngine
// casts a GEMM input. Host code only; standard library only.
//
//   E4M3 ("E4M3FN"): bias 7, no infinities; NaN only S.1111.111 (0x7F, 0xFF).
//                    max normal 448 (0x7E), min normal 2^-6, min subnormal 2^-9.
//   E5M2:            bias 15, IEEE-like; inf 0x7C/0xFC, NaN 0x7D-0x7F/0xFD-0xFF.
//                    max normal 57344 (0x7B), min normal 2^-14, min subnormal 2^-16.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "braid/status.h"
#include "braid/workload.h"

namespace braid {

enum class Fp8Format { kE4m3, kE5m2 };

// The format of an FP8 dtype (IsFp8(d) must hold; anything else is E4M3).
inline Fp8Format Fp8FormatOf(DType d) { return d == DType::kFp8E5m2 ? Fp8Format::kE5m2 : Fp8Format::kE4m3; }

// "fp8_e4m3", "fp8_e5m2".
std::string_view Fp8FormatName(Fp8Format format);

// The largest finite value: 448 (E4M3), 57344 (E5M2).
float Fp8Max(Fp8Format format);

// The code FloatToFp8 gives for a NaN: 0x7F in both formats (a positive
// quiet NaN), as CUDA's __nv_cvt_float_to_fp8 gives.
inline constexpr uint8_t kFp8CanonicalNan = 0x7F;

// The exact value of `bits` in `format`: ±0, subnormals, normals, ±inf for
// E5M2's 0x7C/0xFC, a quiet NaN for every NaN code. A lookup in a 256-entry
// table per format, built on first use.
float Fp8ToFloat(Fp8Format format, uint8_t bits);

// `x` rounded to the nearest value of `format`, ties to the even code
// (mantissa LSB 0), SATURATING like the casts TransformerEngine and cuBLASLt
// run on Hopper (PTX cvt.rn.satfinite): a finite value beyond the largest
// becomes ±Fp8Max, and so does ±inf. An FP8 GEMM input is a scaled tensor
// whose scale came from an amax history; a value past the range means the
// scale is stale, and clamping it keeps one outlier from turning the whole
// GEMM output into inf or NaN. Hence with saturation every |x| ≥ Fp8Max gives
// Fp8Max (E4M3's 464, halfway to a 480 that does not exist because 0x7F is
// NaN, gives 448). NaN gives kFp8CanonicalNan; -0.0 and negative values too
// small to round to the smallest subnormal give 0x80 (signed zero).
uint8_t FloatToFp8(Fp8Format format, float x);

// Per-tensor scaled quantization, as TransformerEngine does it: the FP8 value
// stored is FloatToFp8(x * scale) and the value it stands for is
// Fp8ToFloat(q) * scale_inv, with scale_inv = 1 / scale computed once in
// float (TE keeps scale_inv beside the tensor and multiplies by it; it does
// not divide). When the scale is a power of two (what TE's pow-2 recipes and
// Fp8ScaleForAmax with such an amax give), 1 / scale is exact and both the
// product and the division are exact too: Dequantize(Quantize(v)) == v for
// every v that is a representable FP8 value divided by the scale.
// @pre CheckFp8Scale(scale).ok().
uint8_t QuantizeFp8(Fp8Format format, float x, float scale);
float DequantizeFp8(Fp8Format format, uint8_t q, float scale);

// The same over arrays, element by element.
// @pre out.size() == in.size(); only the first min(in.size(), out.size())
// elements are converted.
void QuantizeFp8(Fp8Format format, std::span<const float> in, float scale, std::span<uint8_t> out);
void DequantizeFp8(Fp8Format format, std::span<const uint8_t> in, float scale, std::span<float> out);

// Quantizes then dequantizes every value in place: what a GEMM input looks
// like to the tensor cores after TransformerEngine's cast, in its own units.
void RoundToFp8(Fp8Format format, float scale, std::span<float> values);

// TransformerEngine's delayed-scaling scale for a tensor whose recent
// absolute maximum is `amax`: Fp8Max / amax / 2^margin_pow2, so that amax
// lands 2^margin below the format's max. An amax that is not a finite number
// > 0 (an all-zero tensor, an overflowed one) gives 1: there is nothing to
// scale by (TE keeps the previous scale there; 1 is the initial one). A
// result that overflows float (a tiny amax) becomes FLT_MAX, as TE clamps it.
float Fp8ScaleForAmax(Fp8Format format, float amax, float margin_pow2 = 0);

// The largest |value| of `values` (0 for none): the amax TE's recipes keep a
// history of. NaNs are skipped (fmax), as an amax reduction on the GPU does.
float Fp8Amax(std::span<const float> values);

// A GEMM input rounded to FP8 as a run casts it: with `fixed` where the run
// gives one (delayed scaling from a known history), else the scale of its
// own amax (Fp8ScaleForAmax); every value in place (RoundToFp8). Returns the
// scale used. Both backends cast through this, so their inputs agree bit for
// bit. @pre a fixed scale passed CheckFp8Scale.
float RoundTensorToFp8(Fp8Format format, std::span<float> values, std::optional<float> fixed);

// Invalid unless `scale` is a finite, positive, normal float
// (FLT_MIN ≤ scale ≤ FLT_MAX): zero, negatives, NaN and inf are refused, and
// so are subnormals, whose 1 / scale overflows to inf. The message names the
// value and what is allowed.
Status CheckFp8Scale(float scale);

}  // namespace braid
