// Library messages name fields (`comm_lanes`); the command line prints the
// flags that set them (--streams): cli/field_flags.h.
#include "field_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using braid::cli::FlagOfField;
using braid::cli::FlagWorded;

TEST(FieldFlags, MarkedFieldsBecomeTheirFlags) {
  EXPECT_EQ(FlagWorded("`comm_lanes` must be between 1 and 8 (got 9)"), "--streams must be between 1 and 8 (got 9)");
  EXPECT_EQ(FlagWorded("serial runs the collective whole: it takes no `chunks` or `splits`"),
            "serial runs the collective whole: it takes no --chunks or --splits");
  EXPECT_EQ(FlagWorded("sequence positions (`seq`)"), "sequence positions (--seq)");
  EXPECT_EQ(FlagWorded("`timeout_s`"), "--timeout");
  EXPECT_EQ(FlagOfField("algorithm"), "--algo");
  EXPECT_EQ(FlagOfField("comm_engine"), "--comm-engine");
}

TEST(FieldFlags, UnmarkedWordsAndPathsStayAsTheyAre) {
  // Field names as plain words, inside words and in paths are not fields.
  const std::string plain =
      "iso splits a layer's sequence; the chunked algorithm only; stp output in /data/tp/seq.db; "
      "--tp 3 is odd; chunks=2";
  EXPECT_EQ(FlagWorded(plain), plain);
  EXPECT_EQ(FlagWorded(""), "");
}

TEST(FieldFlags, UnknownMarksAndLoneBackticksStay) {
  EXPECT_EQ(FlagWorded("`tpx` and `comm_high_priority` stay"), "`tpx` and `comm_high_priority` stay");
  EXPECT_EQ(FlagWorded("a lone ` then `tp` 4"), "a lone ` then --tp 4");
  EXPECT_EQ(FlagWorded("`tp"), "`tp");
  EXPECT_EQ(FlagWorded("``"), "``");
  EXPECT_EQ(FlagOfField("tp "), "");
  EXPECT_EQ(FlagOfField(""), "");
}

// The printed error says the flag the user typed, not the library's field.
TEST(FieldFlags, TheCommandPrintsTheFlag) {
  const auto o = braid::testing_cli::Braid(
      "run --backend cpu --op gemm_rs --m 64 --n 32 --k 64 --tp 4 --iters 2 --warmup 1 --no-db --algo ring --streams "
      "9");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "braid run: --streams must be between 1 and 8 (got 9)\n");
  EXPECT_THAT(o.err, Not(HasSubstr("comm_lanes")));
  EXPECT_THAT(o.err, Not(HasSubstr("`")));
}

}  // namespace
