// GzipWindow (ISA-L, a window at a time) gives the bytes Gunzip gives,
// whatever the member layout and however it is held and dropped, and
// refuses whatever Gunzip refuses (so that the caller's fallback to Gunzip
// names the problem) or what passes the size cap.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

#include "file_bytes.h"
#include "gzip_window.h"
#include "test_files.h"

namespace braid::importers {
namespace {

using testing_files::Gzip;

std::string Text(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < bytes) {
    s += R"({"ph": "X", "name": "k)" + std::to_string(rng() % 97) + R"(", "ts": )" + std::to_string(rng()) + "},\n";
  }
  s.resize(bytes);
  return s;
}

// Everything the window gives, held and dropped in steps of random sizes;
// false when Hold fails.
bool ReadAll(std::string_view gz, size_t max_bytes, std::string* out, uint32_t seed) {
  PaddedBytes buffer;
  GzipWindow w(gz, max_bytes, buffer);
  std::mt19937 rng(seed);
  out->clear();
  for (;;) {
    const size_t want = 1 + rng() % 300000;
    if (!w.Hold(want)) return false;
    const std::string_view held = w.bytes();
    if (held.size() < want && !w.ended()) ADD_FAILURE() << "Hold stopped short before the end";
    const size_t take = w.ended() && held.size() < want ? held.size() : std::min(held.size(), size_t(rng() % want));
    out->append(held.substr(0, take));
    w.Drop(take);
    if (w.ended() && w.bytes().empty()) return true;
  }
}

class GzipWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GzipWindow::Available()) GTEST_SKIP() << "built without ISA-L (libisal-dev)";
  }
};

TEST_F(GzipWindowTest, GivesTheBytesGunzipGives) {
  const std::string big = Text(size_t(3) << 20, 1), mid = Text(70000, 2), tiny = "]}\n";
  const std::string cases[][2] = {
      {Gzip(""), ""},
      {Gzip(tiny), tiny},
      {Gzip(big), big},
      {Gzip(big) + Gzip(tiny), big + tiny},
      {Gzip(tiny) + Gzip("") + Gzip(big) + Gzip(mid), tiny + big + mid},
      {Gzip(mid) + std::string(100, '\0'), mid},  // after the last member: ignored, as gzip(1) does
      {Gzip(mid) + "trailing words", mid},
  };
  uint32_t seed = 0;
  for (const auto& [gz, want] : cases) {
    PaddedBytes whole;
    ASSERT_TRUE(Gunzip(gz, "t.gz", &whole).ok());
    ASSERT_EQ(whole.view(), want);
    std::string got;
    ASSERT_TRUE(ReadAll(gz, kMaxTraceBytes, &got, ++seed)) << "case " << seed;
    EXPECT_EQ(got, want) << "case " << seed;
  }
}

// Damaged data: never bytes that Gunzip would refuse (a flipped bit in the
// trailer's CRC or size included), and the same bytes where it accepts.
TEST_F(GzipWindowTest, RefusesWhatGunzipRefuses) {
  const std::string gz = Gzip(Text(200000, 4));
  std::mt19937 rng(5);
  int refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = gz;
    if (trial % 3 == 0) {
      bad.resize(rng() % gz.size());
    } else if (trial % 3 == 1) {
      bad[bad.size() - 1 - rng() % 8] ^= char(1 + rng() % 255);  // the trailer: CRC32 and ISIZE
    } else {
      for (int flips = 1 + int(rng() % 4); flips > 0; --flips) bad[rng() % bad.size()] ^= char(1 + rng() % 255);
    }
    if (!IsGzip(bad)) continue;
    PaddedBytes whole;
    const bool gunzip_ok = Gunzip(bad, "t.gz", &whole).ok();
    std::string got;
    const bool window_ok = ReadAll(bad, kMaxTraceBytes, &got, uint32_t(trial));
    if (window_ok) {
      ASSERT_TRUE(gunzip_ok) << "trial " << trial << ": the window took data Gunzip refuses";
      EXPECT_EQ(got, whole.view()) << "trial " << trial;
    }
    refused += window_ok ? 0 : 1;
  }
  EXPECT_GT(refused, 150);
}

TEST_F(GzipWindowTest, StopsPastTheCap) {
  const std::string text = Text(1 << 20, 6);
  std::string got;
  EXPECT_FALSE(ReadAll(Gzip(text), text.size() - 1, &got, 1));
  EXPECT_TRUE(ReadAll(Gzip(text), text.size(), &got, 2));
  EXPECT_EQ(got, text);
}

// CountRest inflates the rest into one reused scratch: it tells whether the
// data passes the cap without holding it, and then the window is given up.
TEST_F(GzipWindowTest, CountRestTellsOverTheCapWithoutHoldingIt) {
  const std::string spaces(size_t(24) << 20, ' ');
  const std::string gz = Gzip(spaces);
  for (const size_t cap : {size_t(16) << 20, size_t(32) << 20}) {
    PaddedBytes buffer;
    GzipWindow w(gz, cap, buffer);
    ASSERT_TRUE(w.Hold(size_t(1) << 20));
    w.CountRest();
    EXPECT_EQ(w.exceeded(), cap < spaces.size()) << "cap " << cap;
    EXPECT_FALSE(w.Hold(size_t(2) << 20)) << "given up";
    EXPECT_LE(buffer.capacity(), (size_t(3) << 20)) << "counted in a scratch, not held";
  }
}

}  // namespace
}  // namespace braid::importers
