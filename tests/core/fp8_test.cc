// FP8 (OCP E4M3FN and E5M2): decode against the formats' definitions, encode
// against a brute-force nearest-code search, saturation, ties to even, and
// TransformerEngine-style scaled quantization.
#include "braid/fp8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace braid {
namespace {

// The formats by their definitions, written out again here so that the
// library's own tables are checked, not trusted.
struct Spec {
  Fp8Format format;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_inf;  // E5M2: exponent all ones with mantissa 0 is inf; E4M3 has none
};

const Spec kE4m3{Fp8Format::kE4m3, 4, 3, 7, false};
const Spec kE5m2{Fp8Format::kE5m2, 5, 2, 15, true};
const Spec kSpecs[] = {kE4m3, kE5m2};

constexpr float kInf = std::numeric_limits<float>::infinity();

double Pow2(int e) {
  double v = 1;
  for (int i = 0; i < e; ++i) v *= 2;
  for (int i = 0; i > e; --i) v /= 2;
  return v;
}

bool IsNanCode(const Spec& s, int code) {
  const int e = (code >> s.mantissa_bits) & ((1 << s.exponent_bits) - 1);
  const int m = code & ((1 << s.mantissa_bits) - 1);
  const int e_max = (1 << s.exponent_bits) - 1;
  const int m_max = (1 << s.mantissa_bits) - 1;
  return s.has_inf ? (e == e_max && m != 0) : (e == e_max && m == m_max);
}

// sign * 2^(e - bias) * (1 + m / 2^mbits), subnormals sign * 2^(1 - bias) * m / 2^mbits.
// @pre !IsNanCode(s, code).
double DefinitionValue(const Spec& s, int code) {
  const double sign = (code & 0x80) != 0 ? -1.0 : 1.0;
  const int e = (code >> s.mantissa_bits) & ((1 << s.exponent_bits) - 1);
  const int m = code & ((1 << s.mantissa_bits) - 1);
  const double m_scale = Pow2(s.mantissa_bits);
  if (s.has_inf && e == (1 << s.exponent_bits) - 1) return sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * Pow2(1 - s.bias) * (m / m_scale);
  return sign * Pow2(e - s.bias) * (1 + m / m_scale);
}

bool IsFiniteCode(const Spec& s, int code) { return !IsNanCode(s, code) && std::isfinite(DefinitionValue(s, code)); }

// The largest finite positive code, found by search.
int MaxCode(const Spec& s) {
  int best = 0;
  for (int c = 0; c < 0x80; ++c) {
    if (IsFiniteCode(s, c)) best = c;
  }
  return best;
}

// The nearest finite code by exhaustive search, ties to the even code (the
// even mantissa), saturating at the largest finite value; NaN gives 0x7F.
uint8_t BruteForceEncode(const Spec& s, float x) {
  if (std::isnan(x)) return 0x7F;
  const double max = DefinitionValue(s, MaxCode(s));
  const double a = std::min(static_cast<double>(std::fabs(x)), max);
  int best = -1;
  double best_distance = 0;
  for (int c = 0; c < 0x80; ++c) {
    if (!IsFiniteCode(s, c)) continue;
    const double d = std::fabs(a - DefinitionValue(s, c));
    if (best < 0 || d < best_distance || (d == best_distance && c % 2 == 0)) {
      best = c;
      best_distance = d;
    }
  }
  return static_cast<uint8_t>(best | (std::signbit(x) ? 0x80 : 0));
}

float Code(Fp8Format f, int code) { return Fp8ToFloat(f, static_cast<uint8_t>(code)); }
int Encode(Fp8Format f, float x) { return FloatToFp8(f, x); }

TEST(Fp8Decode, EveryCodeIsItsFormatsDefinition) {
  for (const Spec& s : kSpecs) {
    SCOPED_TRACE(std::string(Fp8FormatName(s.format)));
    int nans = 0;
    for (int c = 0; c < 256; ++c) {
      SCOPED_TRACE(c);
      const float got = Code(s.format, c);
      if (IsNanCode(s, c)) {
        EXPECT_TRUE(std::isnan(got));
        ++nans;
        continue;
      }
      EXPECT_EQ(static_cast<double>(got), DefinitionValue(s, c));
      EXPECT_EQ(std::signbit(got), (c & 0x80) != 0);
    }
    // E4M3FN: only S.1111.111; E5M2: S.11111.01 to S.11111.11.
    EXPECT_EQ(nans, s.has_inf ? 6 : 2);
  }
}

TEST(Fp8Decode, KnownCodes) {
  using F = Fp8Format;
  EXPECT_EQ(Code(F::kE4m3, 0x7E), 448.0f);
  EXPECT_EQ(Code(F::kE4m3, 0xFE), -448.0f);
  EXPECT_EQ(Code(F::kE4m3, 0x08), std::ldexp(1.0f, -6));
  EXPECT_EQ(Code(F::kE4m3, 0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(Code(F::kE4m3, 0x38), 1.0f);
  EXPECT_TRUE(std::isnan(Code(F::kE4m3, 0x7F)));
  EXPECT_TRUE(std::isnan(Code(F::kE4m3, 0xFF)));
  EXPECT_EQ(Code(F::kE4m3, 0x7C), 384.0f);  // E4M3FN's exponent 1111 is finite but for 0x7F
  EXPECT_EQ(Code(F::kE5m2, 0x7B), 57344.0f);
  EXPECT_EQ(Code(F::kE5m2, 0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(Code(F::kE5m2, 0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(Code(F::kE5m2, 0x3C), 1.0f);
  EXPECT_EQ(Code(F::kE5m2, 0x7C), kInf);
  EXPECT_EQ(Code(F::kE5m2, 0xFC), -kInf);
  for (int c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(Code(F::kE5m2, c))) << c;
  EXPECT_EQ(Fp8Max(F::kE4m3), 448.0f);
  EXPECT_EQ(Fp8Max(F::kE5m2), 57344.0f);
  EXPECT_EQ(Fp8FormatName(F::kE4m3), "fp8_e4m3");
  EXPECT_EQ(Fp8FormatName(F::kE5m2), "fp8_e5m2");
}

TEST(Fp8Encode, EveryFiniteCodeRoundTripsAndInfSaturates) {
  for (const Spec& s : kSpecs) {
    SCOPED_TRACE(std::string(Fp8FormatName(s.format)));
    for (int c = 0; c < 256; ++c) {
      if (IsNanCode(s, c)) continue;
      const int expected = IsFiniteCode(s, c) ? c : ((c & 0x80) | MaxCode(s));
      EXPECT_EQ(Encode(s.format, Code(s.format, c)), expected) << c;
    }
    EXPECT_EQ(Encode(s.format, 0.0f), 0x00);
    EXPECT_EQ(Encode(s.format, -0.0f), 0x80);
  }
}

TEST(Fp8Encode, MidpointsBetweenAdjacentCodesRoundToTheEvenCode) {
  for (const Spec& s : kSpecs) {
    SCOPED_TRACE(std::string(Fp8FormatName(s.format)));
    const int max_code = MaxCode(s);
    for (int c = 0; c < max_code; ++c) {
      SCOPED_TRACE(c);
      const float lo = Code(s.format, c);
      const float hi = Code(s.format, c + 1);
      const float mid = (lo + hi) / 2;  // exact: at most one bit more than the format has
      ASSERT_EQ(static_cast<double>(mid), (DefinitionValue(s, c) + DefinitionValue(s, c + 1)) / 2);
      const int even = c % 2 == 0 ? c : c + 1;
      EXPECT_EQ(Encode(s.format, mid), even);
      EXPECT_EQ(Encode(s.format, -mid), even | 0x80);
      EXPECT_EQ(Encode(s.format, std::nextafter(mid, 0.0f)), c);
      EXPECT_EQ(Encode(s.format, std::nextafter(mid, kInf)), c + 1);
      EXPECT_EQ(Encode(s.format, -std::nextafter(mid, 0.0f)), c | 0x80);
      EXPECT_EQ(Encode(s.format, -std::nextafter(mid, kInf)), (c + 1) | 0x80);
    }
  }
}

TEST(Fp8Encode, TiesToEvenAtSeveralBinades) {
  using F = Fp8Format;
  const auto p2 = [](float m, int e) { return std::ldexp(m, e); };
  // E4M3 normals: 1.0625 lies between 1.0 (0x38) and 1.125 (0x39); 1.1875 between 0x39 and 1.25 (0x3A).
  EXPECT_EQ(Encode(F::kE4m3, 1.0625f), 0x38);
  EXPECT_EQ(Encode(F::kE4m3, 1.1875f), 0x3A);
  EXPECT_EQ(Encode(F::kE4m3, 17.0f), 0x58);   // 16 | 18
  EXPECT_EQ(Encode(F::kE4m3, 19.0f), 0x5A);   // 18 | 20
  EXPECT_EQ(Encode(F::kE4m3, 232.0f), 0x76);  // 224 | 240
  EXPECT_EQ(Encode(F::kE4m3, 432.0f), 0x7E);  // 416 | 448
  // E4M3 subnormals (units of 2^-9), and across the subnormal/normal boundary.
  EXPECT_EQ(Encode(F::kE4m3, p2(1, -10)), 0x00);  // half the min subnormal
  EXPECT_EQ(Encode(F::kE4m3, -p2(1, -10)), 0x80);
  EXPECT_EQ(Encode(F::kE4m3, p2(3, -10)), 0x02);    // 1 | 2
  EXPECT_EQ(Encode(F::kE4m3, p2(5, -10)), 0x02);    // 2 | 3
  EXPECT_EQ(Encode(F::kE4m3, p2(15, -10)), 0x08);   // 7 | 8 = 2^-6, the min normal
  EXPECT_EQ(Encode(F::kE4m3, p2(8.5f, -9)), 0x08);  // 2^-6 | 2^-6 * 1.125
  EXPECT_EQ(Encode(F::kE4m3, p2(9.5f, -9)), 0x0A);  // 1.125 | 1.25 (x 2^-6)
  // E5M2: 1.125 between 1.0 (0x3C) and 1.25; 1.375 between 1.25 and 1.5 (0x3E).
  EXPECT_EQ(Encode(F::kE5m2, 1.125f), 0x3C);
  EXPECT_EQ(Encode(F::kE5m2, 1.375f), 0x3E);
  EXPECT_EQ(Encode(F::kE5m2, 53248.0f), 0x7A);  // 49152 | 57344
  EXPECT_EQ(Encode(F::kE5m2, p2(1, -17)), 0x00);
  EXPECT_EQ(Encode(F::kE5m2, p2(3, -17)), 0x02);
  EXPECT_EQ(Encode(F::kE5m2, p2(7, -17)), 0x04);  // 3 | 4 = 2^-14, the min normal
}

TEST(Fp8Encode, SaturatesBeyondTheMaxAndForInfinity) {
  using F = Fp8Format;
  // 464 is halfway from 448 to 480, whose pattern 0x7F is NaN in E4M3FN.
  for (float x : {448.0f, 449.0f, 463.0f, 464.0f, 465.0f, 480.0f, 1e6f, 3.4e38f, kInf}) {
    EXPECT_EQ(Encode(F::kE4m3, x), 0x7E) << x;
    EXPECT_EQ(Encode(F::kE4m3, -x), 0xFE) << x;
  }
  EXPECT_EQ(Encode(F::kE4m3, -1e30f), 0xFE);
  // 61440 is halfway from 57344 to 65536, the pattern of inf (0x7C).
  for (float x : {57344.0f, 61439.0f, 61440.0f, 61441.0f, 65536.0f, 1e30f, kInf}) {
    EXPECT_EQ(Encode(F::kE5m2, x), 0x7B) << x;
    EXPECT_EQ(Encode(F::kE5m2, -x), 0xFB) << x;
  }
}

TEST(Fp8Encode, TinyValuesBecomeZeroWithTheirSign) {
  const float denorm_min = std::numeric_limits<float>::denorm_min();
  for (const Spec& s : kSpecs) {
    SCOPED_TRACE(std::string(Fp8FormatName(s.format)));
    const float half_min = std::ldexp(1.0f, -s.bias - s.mantissa_bits);
    for (float x : {std::nextafter(half_min, 0.0f), 1e-30f, std::numeric_limits<float>::min(), denorm_min}) {
      EXPECT_EQ(Encode(s.format, x), 0x00) << x;
      EXPECT_EQ(Encode(s.format, -x), 0x80) << x;
    }
    EXPECT_EQ(Encode(s.format, std::nextafter(half_min, 1.0f)), 0x01);
    EXPECT_EQ(Encode(s.format, -std::nextafter(half_min, 1.0f)), 0x81);
  }
}

TEST(Fp8Encode, NanBecomesTheCanonicalNan) {
  for (const Spec& s : kSpecs) {
    for (float nan : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::signaling_NaN()}) {
      const uint8_t code = FloatToFp8(s.format, nan);
      EXPECT_EQ(code, kFp8CanonicalNan);
      EXPECT_TRUE(IsNanCode(s, code));
    }
  }
}

TEST(Fp8Encode, MatchesABruteForceNearestCodeSearch) {
  std::mt19937 rng(20240607);
  std::uniform_int_distribution<uint32_t> any;
  for (const Spec& s : kSpecs) {
    SCOPED_TRACE(std::string(Fp8FormatName(s.format)));
    // Float exponents from well below the min subnormal to above the max.
    const int lowest = 127 + 1 - s.bias - s.mantissa_bits - 4;
    const int highest = 127 + (1 << s.exponent_bits) - 1 - s.bias + 2;
    std::uniform_int_distribution<int> exponent(lowest, highest);
    int mismatches = 0;
    for (int i = 0; i < 60000; ++i) {
      uint32_t bits = any(rng);
      const int kind = i % 3;
      if (kind >= 1) bits = (bits & 0x807FFFFFu) | (static_cast<uint32_t>(exponent(rng)) << 23);
      // Few mantissa bits: exact codes and midpoints come up often.
      if (kind == 2) bits &= ~((uint32_t{1} << (23 - s.mantissa_bits - 2)) - 1);
      const float x = std::bit_cast<float>(bits);
      if (std::isnan(x)) continue;
      const int expected = BruteForceEncode(s, x);
      const int got = Encode(s.format, x);
      if (got != expected && ++mismatches <= 10) ADD_FAILURE() << "x=" << x << " got " << got << " want " << expected;
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(Fp8Scale, PowerOfTwoScalesAreExactOnRepresentableValues) {
  for (const Spec& s : kSpecs) {
    SCOPED_TRACE(std::string(Fp8FormatName(s.format)));
    for (int k = -12; k <= 12; ++k) {
      SCOPED_TRACE(k);
      const float scale = std::ldexp(1.0f, k);
      std::vector<float> values;
      std::vector<uint8_t> codes;
      for (int c = 0; c < 256; ++c) {
        if (!IsFiniteCode(s, c)) continue;
        const float x = Code(s.format, c) / scale;
        EXPECT_EQ(QuantizeFp8(s.format, x, scale), c);
        const float back = DequantizeFp8(s.format, static_cast<uint8_t>(c), scale);
        EXPECT_EQ(back, x);
        EXPECT_EQ(std::signbit(back), std::signbit(x));
        values.push_back(x);
        codes.push_back(static_cast<uint8_t>(c));
      }
      std::vector<uint8_t> q(values.size());
      QuantizeFp8(s.format, values, scale, q);
      EXPECT_EQ(q, codes);
      std::vector<float> d(codes.size());
      DequantizeFp8(s.format, codes, scale, d);
      EXPECT_EQ(d, values);
      std::vector<float> rounded = values;
      RoundToFp8(s.format, scale, rounded);
      EXPECT_EQ(rounded, values);
    }
  }
}

TEST(Fp8Scale, RoundToFp8IsTheGemmInputAfterTheCast) {
  std::vector<float> v = {1.06f, 500.0f, -1e-9f, 0.3f};
  RoundToFp8(Fp8Format::kE4m3, 1.0f, v);
  EXPECT_EQ(v, (std::vector<float>{1.0f, 448.0f, -0.0f, 0.3125f}));
  EXPECT_TRUE(std::signbit(v[2]));
  // A scale of 1/2 makes room: 500 -> 250 -> 256 (between 240 and 256) -> 512.
  std::vector<float> w = {500.0f};
  RoundToFp8(Fp8Format::kE4m3, 0.5f, w);
  EXPECT_EQ(w[0], 512.0f);
  // Dequantization multiplies by scale_inv = 1 / scale, as TransformerEngine does.
  // For 1.25 (0x3A) and a scale of 3 that differs from dividing by the scale.
  const float three = 3.0f;
  ASSERT_NE(1.25f * (1.0f / three), 1.25f / three);
  EXPECT_EQ(DequantizeFp8(Fp8Format::kE4m3, 0x3A, three), 1.25f * (1.0f / three));
  EXPECT_EQ(QuantizeFp8(Fp8Format::kE4m3, 100.0f, 10.0f), 0x7E);  // 1000 saturates
}

TEST(Fp8Scale, ScaleForAmaxIsMaxOverAmaxOverTwoToTheMargin) {
  using F = Fp8Format;
  EXPECT_EQ(Fp8ScaleForAmax(F::kE4m3, 448.0f), 1.0f);
  EXPECT_EQ(Fp8ScaleForAmax(F::kE4m3, 2.0f), 224.0f);
  EXPECT_EQ(Fp8ScaleForAmax(F::kE4m3, 448.0f, 1.0f), 0.5f);
  EXPECT_EQ(Fp8ScaleForAmax(F::kE5m2, 57344.0f), 1.0f);
  EXPECT_EQ(Fp8ScaleForAmax(F::kE5m2, 7.0f, 3.0f), 1024.0f);
  for (float amax : {0.0f, -0.0f, -1.0f, kInf, std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_EQ(Fp8ScaleForAmax(F::kE4m3, amax), 1.0f) << amax;
  }
  EXPECT_EQ(Fp8ScaleForAmax(F::kE4m3, std::numeric_limits<float>::denorm_min()), std::numeric_limits<float>::max());
  // The scale puts amax at the top of the range.
  const float scale = Fp8ScaleForAmax(F::kE4m3, 3.5f);
  EXPECT_EQ(QuantizeFp8(F::kE4m3, 3.5f, scale), 0x7E);
}

TEST(Fp8Scale, CheckRefusesZeroNegativeNanInfAndSubnormal) {
  for (float bad : {0.0f, -0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), kInf, -kInf,
                    std::numeric_limits<float>::denorm_min()}) {
    const Status s = CheckFp8Scale(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("finite positive"), std::string::npos) << s.message();
  }
  EXPECT_NE(CheckFp8Scale(-1.0f).message().find("scale -1 "), std::string::npos) << CheckFp8Scale(-1.0f).message();
  EXPECT_NE(CheckFp8Scale(kInf).message().find("scale inf "), std::string::npos);
  EXPECT_NE(CheckFp8Scale(std::numeric_limits<float>::quiet_NaN()).message().find("scale nan "), std::string::npos);
  for (float good : {1.0f, 0.5f, 448.0f, std::ldexp(1.0f, -20), std::numeric_limits<float>::min(),
                     std::numeric_limits<float>::max()}) {
    EXPECT_TRUE(CheckFp8Scale(good).ok()) << good;
  }
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// The cast both backends run on a GEMM input: its own amax scale, or the
// run's fixed one; NaNs do not set the amax.
TEST(Fp8Tensor, RoundTensorTakesTheFixedScaleElseItsAmaxOne) {
  std::vector<float> v = {0.5f, -3.0f, std::nanf(""), 1.25f};
  EXPECT_FLOAT_EQ(Fp8Amax(v), 3.0f);
  EXPECT_FLOAT_EQ(Fp8Amax({}), 0.0f);
  std::vector<float> own = {0.5f, -3.0f, 1.25f, 0.1f};
  const float scale = RoundTensorToFp8(Fp8Format::kE4m3, own, std::nullopt);
  EXPECT_FLOAT_EQ(scale, Fp8ScaleForAmax(Fp8Format::kE4m3, 3.0f));
  EXPECT_FLOAT_EQ(own[1], -3.0f);  // the amax lands on 448 exactly and comes back
  std::vector<float> fixed = {0.5f, -3.0f, 1.25f, 0.1f};
  EXPECT_FLOAT_EQ(RoundTensorToFp8(Fp8Format::kE4m3, fixed, 1.0f), 1.0f);
  // At scale 1, 0.1 rounds to E4M3's nearest (0.1015625), not to itself.
  EXPECT_FLOAT_EQ(fixed[3], 0.1015625f);
  std::vector<float> zeros(4, 0.0f);
  EXPECT_FLOAT_EQ(RoundTensorToFp8(Fp8Format::kE5m2, zeros, std::nullopt), 1.0f);
}

}  // namespace
}  // namespace braid
