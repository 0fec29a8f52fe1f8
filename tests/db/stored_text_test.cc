// The store's codec (braid/stored_text.h): what writers encode, readers
// decode to the same values, and damaged text gets one message form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/stored_text.h"

namespace braid {
namespace {

OverlapConfig Ring() {
  OverlapConfig c;
  c.algorithm = Algorithm::kRing;
  c.chunks = 2;
  c.comm_lanes = 2;
  c.comm_sms = 8;
  c.comm_engine = CommEngine::kCopyEngine;
  c.comm_high_priority = false;
  return c;
}

TEST(StoredText, ConfigRoundTripsThroughItsText) {
  const OverlapConfig c = Ring();
  Result<StoredConfig> back = DecodeConfigText(ConfigJson(c).dump(), false, "run 1");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->config);
  EXPECT_EQ(back->config->Describe(), c.Describe());
  EXPECT_EQ(back->json, ConfigJson(c));
}

// TE's knobs travel too, written only where set (a config without them
// reads back the same as before they existed).
TEST(StoredText, MarginAndTheBulkPairsSecondBudgetRoundTrip) {
  OverlapConfig bulk;
  bulk.algorithm = Algorithm::kBulk;
  bulk.comm_sms = 4;
  bulk.wgrad_comm_sms = 24;
  bulk.sm_margin = true;
  Result<StoredConfig> back = DecodeConfigText(ConfigJson(bulk).dump(), false, "run 1");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back->config, bulk);
  EXPECT_EQ(ConfigJson(Ring()).count("sm_margin"), 0u);
  EXPECT_EQ(ConfigJson(Ring()).count("wgrad_comm_sms"), 0u);
  Result<StoredConfig> bad = DecodeConfigText(R"({"algorithm":"ring","wgrad_comm_sms":8})", false, "run 3");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("applies to bulk only"));
  EXPECT_FALSE(DecodeConfigText(R"({"algorithm":"chunked","chunks":2,"sm_margin":"yes"})", false, "run 3").ok());
}

// A layer note keeps each op's config (as JSON) and figures; an older
// store's Describe() text still reads.
TEST(StoredText, LayerOpsCarryTheirConfigAndFigures) {
  OverlapConfig c;
  c.algorithm = Algorithm::kChunked;
  c.chunks = 4;
  c.comm_sms = 16;
  c.sm_margin = true;
  const nlohmann::json notes = {{"layer",
                                 {{"ops",
                                   {{{"name", "fc2"},
                                     {"config", ConfigJson(c)},
                                     {"time_ns", 5.0},
                                     {"comm_ns", 3.0},
                                     {"exposed_comm_ns", 1.0},
                                     {"overlap_ratio", 0.5}},
                                    {{"name", "fc1"}, {"config", "ring chunks=1 streams=1"}}}}}}};
  const std::vector<LayerOpNote> ops = LayerOpsOf(notes);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].config, c.Describe());
  ASSERT_TRUE(ops[0].figures.has_value());
  EXPECT_EQ(ops[0].figures->time_ns, 5.0);
  EXPECT_EQ(ops[0].figures->exposed_comm_ns, 1.0);
  EXPECT_EQ(ops[1].config, "ring chunks=1 streams=1");
  EXPECT_FALSE(ops[1].figures.has_value());
}

TEST(StoredText, DamagedConfigTextNamesTheRowAndTheProblem) {
  Result<StoredConfig> bad = DecodeConfigText("{not json", false, "run 7");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "damaged store: run 7 has config JSON that does not parse");
  Result<StoredConfig> wrong = DecodeConfigText(R"({"algorithm":"ring","chunks":"two"})", false, "run 7");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "damaged store: run 7 has a config JSON that is not Braid's: 'chunks' is not an integer");
  EXPECT_TRUE(wrong.status().is_user_error());
}

TEST(StoredText, AnEmptyConfigIsAllowedOnlyWhereAskedFor) {
  Result<StoredConfig> imported = DecodeConfigText("{}", true, "run 2");
  ASSERT_TRUE(imported.ok());
  EXPECT_FALSE(imported->config);
  EXPECT_FALSE(DecodeConfigText("{}", false, "run 2").ok());
}

TEST(StoredText, NotesOfTheWrongShapeAreRefusedWithTheirField) {
  EXPECT_TRUE(DecodeNotesText(R"({"compute_dtype":"fp32","notes":["a"],"verify":null,"seed":3})", "run 1").ok());
  Result<nlohmann::json> bad = DecodeNotesText(R"({"verify":{"ok":"yes"}})", "run 4");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "damaged store: run 4 has notes field 'verify' that is not {ok, max_rel_error, worst_rank} or null");
  EXPECT_FALSE(DecodeNotesText(R"({"files":[1]})", "run 4").ok());
  EXPECT_FALSE(DecodeNotesText(R"([1,2])", "run 4").ok());
  EXPECT_FALSE(DecodeNotesText("", "run 4").ok());
  // A sim run's error band: a number from 0 to 1, and a boolean beside it.
  EXPECT_TRUE(DecodeNotesText(R"({"error_band":0.12,"error_band_assumed":true})", "run 1").ok());
  Result<nlohmann::json> band = DecodeNotesText(R"({"error_band":5})", "run 5");
  ASSERT_FALSE(band.ok());
  EXPECT_EQ(band.status().message(),
            "damaged store: run 5 has notes field 'error_band' that is not a number from 0 to 1");
  EXPECT_FALSE(DecodeNotesText(R"({"error_band":"wide"})", "run 5").ok());
  EXPECT_FALSE(DecodeNotesText(R"({"error_band_assumed":1})", "run 5").ok());
}

TEST(StoredText, TheLayerNoteDescribesTheStoredWorkload) {
  const nlohmann::json notes = {{"layer", {{"describe", "llama3-70b prefill seq=4096"}, {"ops", {1, 2, 3}}}}};
  ASSERT_TRUE(DecodeNotesText(notes.dump(), "run 1").ok());
  ASSERT_NE(LayerNote(notes), nullptr);
  Workload w;
  EXPECT_EQ(DescribeStoredWorkload(true, w, notes), "llama3-70b prefill seq=4096 (3 ops)");
  EXPECT_EQ(LayerNote(nlohmann::json::object()), nullptr);
  w.tp = 4;
  EXPECT_EQ(DescribeStoredWorkload(false, w, nlohmann::json::object()), "imported trace, 4 rank(s)");
}

TEST(StoredText, TrialKeysSplitIntoTargetConfigAndStage) {
  const TrialKey k{"fc1", Ring().Describe(), "search"};
  const std::string text = EncodeTrialKey(k);
  Result<TrialKey> back = DecodeTrialKey(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->target, "fc1");
  EXPECT_EQ(back->config, k.config);
  EXPECT_EQ(back->stage, "search");
  EXPECT_FALSE(DecodeTrialKey("fc1").ok());
  EXPECT_FALSE(DecodeTrialKey("fc1|ring").ok());
}

TEST(StoredText, TrialConfigKeepsTargetStageAndWarmup) {
  const std::string text = EncodeTrialConfig({Ring(), "fc2", "baseline", 3});
  Result<TrialConfig> back = DecodeTrialConfig(text, "trial 1");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->config.Describe(), Ring().Describe());
  EXPECT_EQ(back->target, "fc2");
  EXPECT_EQ(back->stage, "baseline");
  ASSERT_TRUE(back->warmup);
  EXPECT_EQ(*back->warmup, 3);
  Result<TrialConfig> no_warmup = DecodeTrialConfig(R"({"algorithm":"serial"})", "trial 1");
  ASSERT_TRUE(no_warmup.ok());
  EXPECT_FALSE(no_warmup->warmup);
  EXPECT_FALSE(DecodeTrialConfig(R"({"algorithm":"serial","warmup":-1})", "trial 1").ok());
  EXPECT_FALSE(DecodeTrialConfig(R"({"algorithm":"serial","stage":5})", "trial 1").ok());
}

TEST(StoredText, SamplesAreANonEmptyArrayOfNumbers) {
  Result<std::vector<double>> back = DecodeSamples(EncodeSamples({1.5, 2, 3}), "trial 2");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<double>{1.5, 2, 3}));
  for (const char* bad : {"", "[]", "not json", R"(["a"])", "{}"}) {
    Result<std::vector<double>> r = DecodeSamples(bad, "trial 2 of session 1");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("damaged store: trial 2 of session 1 has ", 0), 0u) << r.status().message();
  }
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// One reading of the layer note's ops for every reader (report --compare's
// pass times, the viewer's details): wrong-typed fields are "", and a step
// belongs to the longest op name that prefixes it with a dot.
TEST(StoredText, LayerOpsAndTheOpOfAStep) {
  const nlohmann::json notes = {
      {"layer",
       {{"ops",
         {{{"name", "fc2"}, {"pass", "fprop"}, {"method", "ring"}},
          {{"name", "fc2.dgrad"}, {"pass", "dgrad"}, {"method", 7}, {"config", "bulk comm_sms=16"}},
          "not an op",
          {{"pass", "wgrad"}}}}}}};
  const std::vector<LayerOpNote> ops = LayerOpsOf(notes);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[1].name, "fc2.dgrad");
  EXPECT_EQ(ops[1].method, "");
  EXPECT_EQ(ops[1].config, "bulk comm_sms=16");
  EXPECT_EQ(ops[2].name, "");
  const LayerOpNote* dgrad = OpOfStep("fc2.dgrad.gemm", ops);
  ASSERT_NE(dgrad, nullptr);
  EXPECT_EQ(dgrad->pass, "dgrad");
  ASSERT_NE(OpOfStep("fc2.gemm.c0", ops), nullptr);
  EXPECT_EQ(OpOfStep("fc2.gemm.c0", ops)->pass, "fprop");
  EXPECT_EQ(OpOfStep("fc2", ops), nullptr);        // the op's name alone is no step of it
  EXPECT_EQ(OpOfStep("fc20.gemm", ops), nullptr);  // a prefix without its dot
  EXPECT_EQ(OpOfStep(".gemm", ops), nullptr);      // the nameless op matches nothing
  EXPECT_TRUE(LayerOpsOf(nlohmann::json{{"layer", 3}}).empty());
  EXPECT_TRUE(LayerOpsOf(nlohmann::json::array()).empty());
}

}  // namespace
}  // namespace braid
