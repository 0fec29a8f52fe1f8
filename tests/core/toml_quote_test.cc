// TomlQuote: what every data-file writer quotes reads back through ParseToml.
#include "braid/toml_quote.h"

#include <gtest/gtest.h>

#include <string>

#include "braid/toml_reader.h"

namespace braid {
namespace {

std::string ReadBack(const std::string& text) {
  auto root = ParseToml("k = " + TomlQuote(text) + "\n", "quote.toml");
  EXPECT_TRUE(root.ok()) << root.status().message();
  if (!root.ok() || root->Find("k") == nullptr) return "<unreadable>";
  return root->Find("k")->str;
}

TEST(TomlQuote, EscapesByNameWhereTomlHasAName) {
  EXPECT_EQ(TomlQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(TomlQuote("\b\t\n\f\r"), "\"\\b\\t\\n\\f\\r\"");
  EXPECT_EQ(TomlQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001F\\u007F\"");
}

TEST(TomlQuote, EveryControlCharacterRoundTripsThroughTheReader) {
  std::string all;
  for (int c = 0; c < 0x20; ++c) all += char(c);
  all += '\x7f';
  all += "quote \" backslash \\ caf\xc3\xa9";
  EXPECT_EQ(ReadBack(all), all);
  EXPECT_EQ(ReadBack(""), "");
}

}  // namespace
}  // namespace braid
