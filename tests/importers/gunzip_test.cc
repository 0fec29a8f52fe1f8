// Gunzip (libdeflate first) gives the bytes zlib gives, whatever the member
// layout, and leaves the naming of bad data to zlib.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "braid/gzip_bytes.h"
#include "file_bytes.h"
#include "shared_dir.h"
#include "test_files.h"

namespace braid {
namespace {

using importers::Gunzip;
using importers::GunzipWithZlib;
using importers::PaddedBytes;
using testing_files::Gzip;

// Text that compresses like a trace: repeated keys, varying numbers.
std::string TraceLikeText(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < bytes) {
    s += R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(rng() % 97) + R"(", "ts": )" +
         std::to_string(rng()) + ", \"dur\": " + std::to_string(rng() % 5000) + "},\n";
  }
  s.resize(bytes);
  return s;
}

void ExpectSameAsZlib(const std::string& gz, const std::string& want) {
  PaddedBytes fast, slow;
  ASSERT_TRUE(Gunzip(gz, "t.gz", &fast).ok());
  ASSERT_TRUE(GunzipWithZlib(gz, "t.gz", &slow).ok());
  EXPECT_EQ(fast.view(), want);
  EXPECT_EQ(slow.view(), want);
  for (size_t i = 0; i < PaddedBytes::kPadding; ++i) {
    ASSERT_EQ(fast.data()[fast.size() + i], '\0') << "the padding simdjson reads past the end";
  }
}

TEST(Gunzip, OneMemberInflatesAsZlibDoes) {
  for (const size_t n : {size_t(0), size_t(1), size_t(4095), size_t(1) << 20}) {
    const std::string text = TraceLikeText(n, uint32_t(n));
    ExpectSameAsZlib(Gzip(text), text);
  }
}

// The whole file's trailer gives only the last member's size: a large first
// member and a tiny last one make the first guess far too small.
TEST(Gunzip, MembersOfAnySizeAreJoinedWhateverTheLastTrailerSays) {
  const std::string big = TraceLikeText(size_t(3) << 20, 1), tiny = "]}\n", mid = TraceLikeText(70000, 2);
  ExpectSameAsZlib(Gzip(big) + Gzip(tiny), big + tiny);
  ExpectSameAsZlib(Gzip(tiny) + Gzip(big) + Gzip(mid), tiny + big + mid);
  ExpectSameAsZlib(Gzip("") + Gzip(mid) + Gzip(""), mid);
}

TEST(Gunzip, BytesAfterTheLastMemberAreIgnoredAsGzipDoes) {
  const std::string text = TraceLikeText(50000, 3);
  ExpectSameAsZlib(Gzip(text) + std::string(100, '\0'), text);
  ExpectSameAsZlib(Gzip(text) + "trailing words", text);
}

// Damaged input: the fast path never returns bytes zlib would refuse, and
// the error is zlib's, naming the problem.
TEST(Gunzip, DamagedDataFailsAsZlibFailsWithItsMessage) {
  const std::string gz = Gzip(TraceLikeText(200000, 4));
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = gz;
    if (trial % 3 == 0) {
      bad.resize(rng() % gz.size());
    } else {
      for (int flips = 1 + int(rng() % 4); flips > 0; --flips) bad[rng() % bad.size()] ^= char(1 + rng() % 255);
    }
    PaddedBytes fast, slow;
    const Status f = Gunzip(bad, "t.gz", &fast), s = GunzipWithZlib(bad, "t.gz", &slow);
    ASSERT_EQ(f.ok(), s.ok()) << "trial " << trial << ": " << f.message() << " / " << s.message();
    if (f.ok()) {
      EXPECT_EQ(fast.view(), slow.view()) << "trial " << trial;
    } else {
      EXPECT_EQ(f.message(), s.message());
    }
  }
}

// The export's compressor: fed in pieces of any size, its output inflates to
// the text, and a sink's error stops it.
TEST(GzipStream, PiecesOfAnySizeInflateToTheWholeText) {
  const std::string text = TraceLikeText(3'000'000, 11);
  for (size_t piece : {size_t(1) << 10, size_t(65537), size_t(3'000'000)}) {
    std::string gz;
    size_t handed = 0;
    auto stream = GzipStream::Start([&](std::string_view p) {
      gz.append(p);
      ++handed;
      return Status::Ok();
    });
    ASSERT_TRUE(stream.ok());
    for (size_t at = 0; at < text.size(); at += piece) {
      ASSERT_TRUE((*stream)->Write(std::string_view(text).substr(at, piece)).ok());
    }
    ASSERT_TRUE((*stream)->Finish().ok());
    EXPECT_FALSE((*stream)->Write("late").ok());
    EXPECT_GT(handed, 1u);  // handed over as it went, not held to the end
    ExpectSameAsZlib(gz, text);
  }
  auto whole = GzipBytes(text);
  ASSERT_TRUE(whole.ok());
  ExpectSameAsZlib(*whole, text);
}

TEST(GzipStream, ASinksErrorEndsTheStream) {
  int calls = 0;
  auto stream =
      GzipStream::Start([&](std::string_view) { return ++calls == 1 ? Status::Internal("disk full") : Status::Ok(); });
  ASSERT_TRUE(stream.ok());
  Status s;
  const std::string text = TraceLikeText(4'000'000, 5);
  for (size_t at = 0; at < text.size() && s.ok(); at += 100'000) {
    s = (*stream)->Write(std::string_view(text).substr(at, 100'000));
  }
  if (s.ok()) s = (*stream)->Finish();
  EXPECT_EQ(s.message(), "disk full");
  EXPECT_EQ((*stream)->Finish().message(), "disk full");
  EXPECT_EQ(calls, 1);
}

TEST(Gunzip, SharedTracesInflateAsZlibDoes) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const auto dir = testing_shared::SharedPath(testing_shared::kSharedTraces) / "kineto";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".gz") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    PaddedBytes fast, slow;
    ASSERT_TRUE(Gunzip(bytes.str(), "t.gz", &fast).ok());
    ASSERT_TRUE(GunzipWithZlib(bytes.str(), "t.gz", &slow).ok());
    EXPECT_EQ(fast.view(), slow.view()) << entry.path();
    EXPECT_GT(fast.size(), bytes.str().size());
    ++seen;
  }
  EXPECT_GE(seen, 2);
}

// A buffer that creeps up (parts a little larger each time) grows by half
// again, keeping what it held, not by the few bytes asked for each time.
TEST(PaddedBytesGrowth, GrowingAgainTakesHalfAgainAndKeepsTheBytes) {
  PaddedBytes b;
  char* p = b.Reserve(1000);
  EXPECT_EQ(b.capacity(), 1000 + PaddedBytes::kPadding);
  for (int i = 0; i < 1000; ++i) p[i] = char('a' + i % 26);
  const size_t first = b.capacity();
  p = b.Reserve(1001);
  EXPECT_GE(b.capacity(), first + first / 2);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(p[i], char('a' + i % 26)) << i;
  const size_t second = b.capacity();
  b.Reserve(second - PaddedBytes::kPadding);  // fits: no growth
  EXPECT_EQ(b.capacity(), second);
  b.Reserve(10 * second);  // more than half again: what is asked
  EXPECT_EQ(b.capacity(), 10 * second + PaddedBytes::kPadding);
}

}  // namespace
}  // namespace braid
