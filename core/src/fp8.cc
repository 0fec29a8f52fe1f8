// FP8 encode by bit manipulation on the float's bits; decode by table.
#include "braid/fp8.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

namespace braid {
namespace {

// A format's shape. Codes are sign | exponent field | mantissa field, so for
// one sign the codes are ordered like the values they stand for and a
// mantissa carry runs into the exponent field, as in IEEE formats.
struct Fp8Shape {
  int mantissa_bits;
  int bias;
  uint32_t max_code;  // the largest finite positive code
};

constexpr Fp8Shape kE4m3Shape{3, 7, 0x7E};
constexpr Fp8Shape kE5m2Shape{2, 15, 0x7B};

constexpr int kFloatMantissaBits = 23;
constexpr int kFloatBias = 127;
constexpr uint32_t kFloatAbsMask = 0x7FFFFFFFu;
constexpr uint32_t kFloatInfBits = 0x7F800000u;

// v / 2^shift rounded to the nearest integer, ties to even.
// @pre 1 <= shift <= 31.
constexpr uint32_t ShiftRightRoundEven(uint32_t v, int shift) {
  const uint32_t kept = v >> shift;
  const uint32_t rest = v & ((uint32_t{1} << shift) - 1);
  const uint32_t half = uint32_t{1} << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1) != 0)) ? 1 : 0);
}

template <const Fp8Shape& kShape>
uint8_t Encode(float x) {
  constexpr int kDropped = kFloatMantissaBits - kShape.mantissa_bits;
  // The float bits of the format's min normal 2^(1 - bias).
  constexpr uint32_t kMinNormalBits = uint32_t(kFloatBias + 1 - kShape.bias) << kFloatMantissaBits;
  // Subtracting this from a float's bits re-biases its exponent to the format's.
  constexpr uint32_t kRebias = uint32_t(kFloatBias - kShape.bias) << kFloatMantissaBits;

  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (bits >> 24) & 0x80;
  const uint32_t abs = bits & kFloatAbsMask;
  if (abs > kFloatInfBits) return kFp8CanonicalNan;
  uint32_t code = 0;
  if (abs >= kMinNormalBits) {
    // Normal in the format (or beyond it; inf is too): drop the low mantissa
    // bits, rounding; a carry moves into the exponent, and anything past the
    // largest finite code (incl. E4M3's NaN pattern and E5M2's inf) saturates.
    code = std::min(ShiftRightRoundEven(abs - kRebias, kDropped), kShape.max_code);
  } else {
    // Subnormal in the format: the value counted in units of the format's
    // min subnormal 2^(1 - bias - mantissa_bits) is significand * 2^-shift.
    // A count that rounds up to 2^mantissa_bits is the min normal's code.
    const uint32_t float_exponent = abs >> kFloatMantissaBits;
    const uint32_t fraction = abs & ((uint32_t{1} << kFloatMantissaBits) - 1);
    const uint32_t significand = float_exponent == 0 ? fraction : (fraction | (uint32_t{1} << kFloatMantissaBits));
    const int exponent = float_exponent == 0 ? 1 : static_cast<int>(float_exponent);
    const int shift = kFloatBias + kFloatMantissaBits + 1 - kShape.bias - kShape.mantissa_bits - exponent;
    // significand < 2^24, so from a shift of 25 on it is below half a unit.
    code = shift >= 25 ? 0 : ShiftRightRoundEven(significand, shift);
  }
  return static_cast<uint8_t>(code | sign);
}

// Every code's value by the format's definition.
std::array<float, 256> BuildDecodeTable(const Fp8Shape& shape, bool has_inf) {
  std::array<float, 256> table{};
  const int mantissa_count = 1 << shape.mantissa_bits;
  for (int code = 0; code < 256; ++code) {
    const int magnitude = code & 0x7F;
    const int exponent = magnitude >> shape.mantissa_bits;
    const int mantissa = magnitude & (mantissa_count - 1);
    float value = 0;
    if (magnitude > static_cast<int>(shape.max_code)) {
      value =
          has_inf && mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    } else if (exponent == 0) {
      value = std::ldexp(static_cast<float>(mantissa), 1 - shape.bias - shape.mantissa_bits);
    } else {
      value = std::ldexp(static_cast<float>(mantissa_count + mantissa), exponent - shape.bias - shape.mantissa_bits);
    }
    table[static_cast<size_t>(code)] = (code & 0x80) != 0 ? -value : value;
  }
  return table;
}

const std::array<float, 256>& DecodeTable(Fp8Format format) {
  static const std::array<float, 256> kE4m3 = BuildDecodeTable(kE4m3Shape, /*has_inf=*/false);
  static const std::array<float, 256> kE5m2 = BuildDecodeTable(kE5m2Shape, /*has_inf=*/true);
  return format == Fp8Format::kE4m3 ? kE4m3 : kE5m2;
}

template <const Fp8Shape& kShape>
void QuantizeArray(std::span<const float> in, float scale, std::span<uint8_t> out) {
  const size_t n = std::min(in.size(), out.size());
  for (size_t i = 0; i < n; ++i) out[i] = Encode<kShape>(in[i] * scale);
}

template <const Fp8Shape& kShape>
void RoundArray(const std::array<float, 256>& table, float scale, std::span<float> values) {
  const float scale_inv = 1.0f / scale;
  for (float& v : values) v = table[Encode<kShape>(v * scale)] * scale_inv;
}

std::string FloatText(float v) {
  std::array<char, 64> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  if (ec != std::errc()) return "?";
  return std::string(buf.data(), end);
}

}  // namespace

std::string_view Fp8FormatName(Fp8Format format) {
  switch (format) {
    case Fp8Format::kE4m3:
      return "fp8_e4m3";
    case Fp8Format::kE5m2:
      return "fp8_e5m2";
  }
  return "fp8_unknown";
}

float Fp8Max(Fp8Format format) { return format == Fp8Format::kE4m3 ? 448.0f : 57344.0f; }

float Fp8ToFloat(Fp8Format format, uint8_t bits) { return DecodeTable(format)[bits]; }

uint8_t FloatToFp8(Fp8Format format, float x) {
  return format == Fp8Format::kE4m3 ? Encode<kE4m3Shape>(x) : Encode<kE5m2Shape>(x);
}

uint8_t QuantizeFp8(Fp8Format format, float x, float scale) { return FloatToFp8(format, x * scale); }

float DequantizeFp8(Fp8Format format, uint8_t q, float scale) { return Fp8ToFloat(format, q) * (1.0f / scale); }

void QuantizeFp8(Fp8Format format, std::span<const float> in, float scale, std::span<uint8_t> out) {
  if (format == Fp8Format::kE4m3) {
    QuantizeArray<kE4m3Shape>(in, scale, out);
  } else {
    QuantizeArray<kE5m2Shape>(in, scale, out);
  }
}

void DequantizeFp8(Fp8Format format, std::span<const uint8_t> in, float scale, std::span<float> out) {
  const std::array<float, 256>& table = DecodeTable(format);
  const float scale_inv = 1.0f / scale;
  const size_t n = std::min(in.size(), out.size());
  for (size_t i = 0; i < n; ++i) out[i] = table[in[i]] * scale_inv;
}

void RoundToFp8(Fp8Format format, float scale, std::span<float> values) {
  if (format == Fp8Format::kE4m3) {
    RoundArray<kE4m3Shape>(DecodeTable(format), scale, values);
  } else {
    RoundArray<kE5m2Shape>(DecodeTable(format), scale, values);
  }
}

float Fp8ScaleForAmax(Fp8Format format, float amax, float margin_pow2) {
  if (!std::isfinite(amax) || !(amax > 0)) return 1.0f;
  const float scale = Fp8Max(format) / amax / std::exp2(margin_pow2);
  if (std::isinf(scale)) return std::numeric_limits<float>::max();
  return scale;
}

float Fp8Amax(std::span<const float> values) {
  float amax = 0;
  for (float v : values) amax = std::fmax(amax, std::fabs(v));
  return amax;
}

float RoundTensorToFp8(Fp8Format format, std::span<float> values, std::optional<float> fixed) {
  const float scale = fixed.has_value() ? *fixed : Fp8ScaleForAmax(format, Fp8Amax(values));
  RoundToFp8(format, scale, values);
  return scale;
}

Status CheckFp8Scale(float scale) {
  if (std::isfinite(scale) && scale >= std::numeric_limits<float>::min()) return Status::Ok();
  return Status::Invalid("fp8 scale " + FloatText(scale) +
                         " is not allowed: it must be a finite positive normal float (at least " +
                         FloatText(std::numeric_limits<float>::min()) + ", whose reciprocal is finite)");
}

}  // namespace braid
