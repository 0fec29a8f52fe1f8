// Hand-written JSON text: what nlohmann's parser reads back is what was
// meant, for every byte a name may hold.
#include "json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

namespace braid {
namespace {

nlohmann::json ReadBack(const std::string& text) { return nlohmann::json::parse(text, nullptr, false); }

TEST(JsonText, StringsWithQuotesControlsAndUnicodeReadBackUnchanged) {
  for (const std::string& s : {std::string(""), std::string("plain"), std::string("q\"uo\\te"),
                               std::string("tab\tnl\nnul\0x\x1f", 13), std::string("µs → ✓ 𝄞")}) {
    std::string out;
    AppendJsonString(out, s);
    const auto j = ReadBack(out);
    ASSERT_FALSE(j.is_discarded()) << out;
    EXPECT_EQ(j.get<std::string>(), s) << out;
  }
}

TEST(JsonText, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // A lone continuation, an overlong '/', a surrogate, a truncated sequence,
  // a code point past U+10FFFF.
  const std::string bad =
      "a\x80"
      "b\xC0\xAF"
      "c\xED\xA0\x80"
      "d\xE2\x82"
      "e\xF4\x90\x80\x80";
  std::string out;
  AppendJsonString(out, bad);
  const auto j = ReadBack(out);
  ASSERT_FALSE(j.is_discarded()) << out;
  // One U+FFFD per byte that starts no well-formed sequence.
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(j.get<std::string>(), "a" + r + "b" + r + r + "c" + r + r + r + "d" + r + r + "e" + r + r + r + r);
}

TEST(JsonText, RandomBytesAlwaysMakeValidJson) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(size_t(rng() % 24), '\0');
    for (char& c : s) c = char(rng() & 0xFF);
    std::string out;
    AppendJsonString(out, s);
    EXPECT_FALSE(ReadBack(out).is_discarded()) << out;
  }
}

TEST(JsonText, MicrosecondsKeepEveryNanosecond) {
  const std::pair<int64_t, const char*> cases[] = {{0, "0"},
                                                   {1500, "1.5"},
                                                   {2000, "2"},
                                                   {1234567, "1234.567"},
                                                   {7, "0.007"},
                                                   {-1500, "-1.5"},
                                                   {1'000'000'000'000'001, "1000000000000.001"},
                                                   {std::numeric_limits<int64_t>::min(), "-9223372036854775.808"}};
  for (const auto& [ns, want] : cases) {
    std::string out;
    AppendMicrosOfNanos(out, ns);
    EXPECT_EQ(out, want) << ns;
  }
}

TEST(JsonText, DoublesReadBackExactlyAndNonFiniteIsNull) {
  for (double v : {0.0, 1.0, 0.1, 1e300, -2.5e-300, 123456789.125}) {
    std::string out;
    AppendJsonDouble(out, v);
    EXPECT_EQ(ReadBack(out).get<double>(), v) << out;
  }
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    std::string out;
    AppendJsonDouble(out, v);
    EXPECT_EQ(out, "null");
  }
}

}  // namespace
}  // namespace braid
