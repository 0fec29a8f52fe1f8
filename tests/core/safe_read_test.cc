// The one safe reader: regular files only (a FIFO is refused at once, not
// waited on; a device is never read), sizes capped before and during the
// read, one line naming the file and the problem.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "braid/safe_read.h"
#include "temp_dir.h"

namespace braid {
namespace {

#define EXPECT_HAS(status, text) EXPECT_PRED_FORMAT2(::testing::IsSubstring, text, (status).message())

TEST(SafeRead, ReadsARegularFileWholeAndFollowsSymlinks) {
  const testing_files::TempDir tmp;
  const std::string path = tmp.Path("a.toml");
  std::ofstream(path) << "x = 1\n";
  auto text = ReadUserFile(path, "model file");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "x = 1\n");
  const std::string link = tmp.Path("link.toml");
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  EXPECT_EQ(*ReadUserFile(link, "model file"), "x = 1\n");
  std::ofstream(tmp.Path("empty.toml")).flush();
  EXPECT_EQ(*ReadUserFile(tmp.Path("empty.toml"), "model file"), "");
}

TEST(SafeRead, AFifoIsRefusedAtOnceNotWaitedOn) {
  const testing_files::TempDir tmp;
  const std::string fifo = tmp.Path("pipe.toml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = ReadUserFile(fifo, "topology file");  // no writer: a blocking open would never return
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_HAS(r.status(), "is a FIFO, not a topology file");
  EXPECT_EQ(NonRegularKind(fifo), "a FIFO");
}

TEST(SafeRead, DevicesAndDirectoriesAreNamedAndNeverRead) {
  const testing_files::TempDir tmp;
  auto zero = ReadUserFile("/dev/zero", "preset file");  // a read would never end
  ASSERT_FALSE(zero.ok());
  EXPECT_HAS(zero.status(), "'/dev/zero' is a character device, not a preset file");
  auto dir = ReadUserFile(tmp.dir().string(), "preset file");
  ASSERT_FALSE(dir.ok());
  EXPECT_HAS(dir.status(), "is a directory, not a preset file");
  auto missing = ReadUserFile(tmp.Path("none.toml"), "preset file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_HAS(missing.status(), "cannot open preset file");
  EXPECT_EQ(NonRegularKind(tmp.Path("none.toml")), "");
}

TEST(SafeRead, AFileOverItsCapIsRefusedByItsSize) {
  const testing_files::TempDir tmp;
  const std::string path = tmp.Path("big.csv");
  std::ofstream(path) << std::string(3 << 20, 'x');
  auto r = ReadUserFile(path, "CSV file", int64_t(2) << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_HAS(r.status(), "is 3 MiB, more than the 2 MiB a CSV file may have");
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  EXPECT_TRUE(ReadUserFile(path, "CSV file", int64_t(3) << 20).ok());
}

}  // namespace
}  // namespace braid
