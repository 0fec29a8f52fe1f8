#include "braid/toml_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/toml_fields.h"

namespace braid {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(std::string_view text) {
  auto r = ParseToml(text, "f.toml");
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(TomlReader, ReadsScalarsTablesAndPositions) {
  auto r = ParseToml(
      "# comment\n"
      "name = \"h100\"  # trailing\n"
      "count = 8\n"
      "ratio = -1.5e3\n"
      "big = 1_000_000\n"
      "on = true\n"
      "[link]\n"
      "kind = 'nvswitch'\n"
      "a.b = 2\n",
      "f.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Find("name")->str, "h100");
  EXPECT_EQ(r->Find("name")->line, 2);
  EXPECT_EQ(r->Find("name")->column, 8);
  EXPECT_EQ(r->Find("count")->integer, 8);
  EXPECT_DOUBLE_EQ(r->Find("ratio")->number, -1500.0);
  EXPECT_EQ(r->Find("big")->integer, 1000000);
  EXPECT_TRUE(r->Find("on")->boolean);
  const TomlValue* link = r->Find("link");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->Find("kind")->str, "nvswitch");
  EXPECT_EQ(link->Find("a")->Find("b")->integer, 2);
}

TEST(TomlReader, ReadsArraysAcrossLinesAndArraysOfTables) {
  auto r = ParseToml(
      "xs = [1, 2.5,\n  # note\n  3,]\n"
      "nested = [[1], [\"a\"]]\n"
      "[[gemm]]\nm = 1\n[[gemm]]\nm = 2\n[gemm.sub]\nk = 3\n",
      "f.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->Find("xs")->items.size(), 3u);
  EXPECT_DOUBLE_EQ(r->Find("xs")->items[1].number, 2.5);
  EXPECT_EQ(r->Find("nested")->items[1].items[0].str, "a");
  const TomlValue* g = r->Find("gemm");
  ASSERT_EQ(g->items.size(), 2u);
  EXPECT_EQ(g->items[1].Find("m")->integer, 2);
  EXPECT_EQ(g->items[1].Find("sub")->Find("k")->integer, 3);
}

TEST(TomlReader, DecodesEscapesAndKeepsUtf8) {
  auto r = ParseToml("s = \"a\\\"b\\\\c\\n\\u00b5\\U0001F600\"\nt = 'raw \\n µ'\n", "f.toml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Find("s")->str, "a\"b\\c\n\xC2\xB5\xF0\x9F\x98\x80");
  EXPECT_EQ(r->Find("t")->str, "raw \\n \xC2\xB5");
}

TEST(TomlReader, ErrorsNameFileLineAndColumn) {
  EXPECT_THAT(ErrorOf("a = 1\nb = = 2\n"), HasSubstr("f.toml:2:5: expected a value, found '='"));
  EXPECT_THAT(ErrorOf("a = 1\na = 2\n"), HasSubstr("f.toml:2:1: key 'a' is defined twice"));
  EXPECT_THAT(ErrorOf("[t]\n[t]\n"), HasSubstr("f.toml:2:1: table [t] is defined twice"));
  EXPECT_THAT(ErrorOf("a = \"open\n"), HasSubstr("f.toml:1:10: unterminated string"));
  EXPECT_THAT(ErrorOf("a = [1, 2\n"), HasSubstr("unterminated array"));
  EXPECT_THAT(ErrorOf("a = 1 b\n"), HasSubstr("f.toml:1:7: expected the end of the line, found 'b'"));
  EXPECT_THAT(ErrorOf("a = {x = 1}\n"), HasSubstr("inline tables are not supported"));
  EXPECT_THAT(ErrorOf("a = \"\"\"x\"\"\"\n"), HasSubstr("multi-line strings are not supported"));
  EXPECT_THAT(ErrorOf("a = inf\n"), HasSubstr("not a number"));
  EXPECT_THAT(ErrorOf("a = 99999999999999999999\n"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("a = 1__0\n"), HasSubstr("'_' in a number"));
  EXPECT_THAT(ErrorOf("a = \"\\q\"\n"), HasSubstr("unknown escape"));
  EXPECT_THAT(ErrorOf("a = \"\xff\"\n"), HasSubstr("not valid UTF-8"));
  EXPECT_THAT(ErrorOf("[[[a]]]\n"), HasSubstr("f.toml:1:3: expected a key, found '['"));
  EXPECT_THAT(ErrorOf("[in \xC3\x97]\n"), HasSubstr("expected ']' to close the table header"));
  EXPECT_THAT(ErrorOf("a = 1\n[a]\n"), HasSubstr("key 'a' is already an integer, not a table"));
  EXPECT_THAT(ErrorOf("a = 1e5x\n"), HasSubstr("not a number"));
}

TEST(TomlReader, RefusesDeepNestingInsteadOfRecursing) {
  EXPECT_THAT(ErrorOf("a = " + std::string(1000, '[')), HasSubstr("nested too deeply"));
}

TEST(TomlReader, ErrorMessagesAreOneLine) {
  const std::string msg = ErrorOf("a = 1\x01\n");
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_THAT(msg, HasSubstr("byte 0x1"));
}

TEST(TomlFields, TypedReadsNameTheField) {
  auto r = ParseToml("[t]\nx = \"s\"\ny = -1\nz = 3\n", "f.toml");
  ASSERT_TRUE(r.ok());
  const TomlFields f(*r->Find("t"), "f.toml", "t.");
  EXPECT_THAT(f.Positive("x").status().message(), HasSubstr("f.toml:2:5: t.x must be a positive number"));
  EXPECT_THAT(f.Positive("y").status().message(), HasSubstr("f.toml:3:5: t.y must be a positive number"));
  EXPECT_THAT(f.Integer("z", 4, 8).status().message(), HasSubstr("t.z must be an integer between 4 and 8"));
  EXPECT_THAT(f.String("w").status().message(), HasSubstr("f.toml: missing field 't.w'"));
  EXPECT_THAT(f.String("y").status().message(), HasSubstr("t.y must be a string (found an integer)"));
  EXPECT_EQ(*f.Integer("z", 1, 8), 3);
  EXPECT_THAT(f.OnlyKnownKeys({"x", "y"}).message(), HasSubstr("f.toml:4:5: unknown field 't.z' (known: t.x, t.y)"));
  EXPECT_EQ(*f.OptionalBool("missing", true), true);
}

TEST(TomlFields, AFileOfAnotherKindIsRefusedWithoutEchoingItsKeys) {
  // A reader pointed at someone's secret file: its first key is the secret.
  auto r = ParseToml("aws_secret_key = \"hunter2\"\nregion = \"x\"\n", "creds.toml");
  ASSERT_TRUE(r.ok());
  const TomlFields f(*r, "creds.toml", "");
  const std::string msg = f.OnlyKnownKeys({"name", "hidden"}).message();
  EXPECT_EQ(msg, "creds.toml:1:18: none of its fields is one this file takes (name, hidden): not this kind of file");
  EXPECT_EQ(msg.find("aws_secret_key"), std::string::npos);
  EXPECT_EQ(msg.find("hunter2"), std::string::npos);
}

}  // namespace
}  // namespace braid
