#include "braid/model_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace braid {
namespace model_files_test {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTiny = R"(name = "tiny"
hidden = 64
heads = 4
kv_heads = 2
head_dim = 16
ffn = 128
gated_mlp = true
layers = 2
source = "a test"
)";

TEST(ModelFiles, EveryShippedModelParses) {
  const auto names = BuiltinModelNames();
  ASSERT_EQ(names.size(), 6u);
  for (const std::string& n : names) {
    auto m = LoadModel(n);
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(m->name, n);
    EXPECT_EQ(m->heads % m->kv_heads, 0) << n;
    EXPECT_FALSE(m->source.empty()) << n << " has no source for its numbers";
  }
}

// The figures of a model that its sources give.
struct Shape {
  int64_t hidden, heads, kv_heads, head_dim, ffn;
  bool gated_mlp;
  int64_t layers;
};

// A shipped model's figures, field by field, against its sources.
void ExpectShape(const std::string& name, const Shape& want) {
  auto m = LoadModel(name);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->hidden, want.hidden) << name;
  EXPECT_EQ(m->heads, want.heads) << name;
  EXPECT_EQ(m->kv_heads, want.kv_heads) << name;
  EXPECT_EQ(m->head_dim, want.head_dim) << name;
  EXPECT_EQ(m->ffn, want.ffn) << name;
  EXPECT_EQ(m->gated_mlp, want.gated_mlp) << name;
  EXPECT_EQ(m->layers, want.layers) << name;
}

TEST(ModelFiles, Llama30bMatchesThePaperAndItsConfig) {
  ExpectShape(
      "llama-30b",
      {.hidden = 6656, .heads = 52, .kv_heads = 52, .head_dim = 128, .ffn = 17920, .gated_mlp = true, .layers = 60});
}

TEST(ModelFiles, Llama70bMatchesItsConfig) {
  ExpectShape(
      "llama3-70b",
      {.hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .ffn = 28672, .gated_mlp = true, .layers = 80});
}

TEST(ModelFiles, Gpt3IsMultiHeadWithPlainMlp) {
  auto m = LoadModel("gpt3-175b");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->hidden, 12288);
  EXPECT_EQ(m->kv_heads, m->heads);
  EXPECT_EQ(m->ffn, 4 * m->hidden);
  EXPECT_FALSE(m->gated_mlp);
}

TEST(ModelFiles, UnknownNameListsKnownOnes) {
  auto m = LoadModel("llama9");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(m.status().message(), HasSubstr("unknown model 'llama9'"));
  for (const char* known : {"llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "qwen2-72b"}) {
    EXPECT_THAT(m.status().message(), HasSubstr(known));
  }
}

TEST(ModelFiles, LoadsFromAPath) {
  const std::string path = testing::TempDir() + "/braid_tiny_model.toml";
  {
    std::ofstream out(path);
    out << kTiny;
  }
  auto m = LoadModel(path);
  std::remove(path.c_str());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->name, "tiny");
  EXPECT_EQ(m->ffn, 128);
}

TEST(ModelFiles, BadFieldNamesFileLineAndField) {
  std::string text = kTiny;
  text.replace(text.find("heads = 4"), 9, "heads = -4");
  auto m = ParseModelToml(text, "mine.toml");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("mine.toml:3:"));
  EXPECT_THAT(m.status().message(), HasSubstr("heads"));
}

TEST(ModelFiles, RejectsUnknownKeysAndKvHeadsThatDoNotDivide) {
  auto typo = ParseModelToml(std::string(kTiny) + "hiden = 3\n", "mine.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.status().message(), HasSubstr("hiden"));
  std::string text = kTiny;
  text.replace(text.find("kv_heads = 2"), 12, "kv_heads = 3");
  auto m = ParseModelToml(text, "mine.toml");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("mine.toml:4:"));
  EXPECT_THAT(m.status().message(), HasSubstr("kv_heads=3 must divide heads=4"));
}

TEST(ModelFiles, MissingFileIsNotFound) {
  auto m = LoadModel("/nonexistent/model.toml");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace model_files_test
}  // namespace braid
