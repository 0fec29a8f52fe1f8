// The TE rule checker's own tests (te_ub_rules.h): it must be able to fail,
// on each rule, and accept what TE accepts, left-out keys included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "te_ub_rules.h"

namespace braid::testing_te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A well-formed entry with `method` (the other fields as export-te writes them).
UbFields With(const std::string& method) {
  return {{"method", method},     {"num_splits", "8"},  {"num_sm", "1"}, {"cga_size", "1"},
          {"set_sm_margin", "0"}, {"atomic_gemm", "0"}, {"use_ce", "0"}};
}

// TE's own default for every key, the dict initialize_ub builds unasked.
UbCfgs TeDefaults() {
  UbCfgs c;
  for (const char* key : {"qkv_fprop", "fc1_fprop", "proj_dgrad", "fc2_dgrad"}) c[key] = With("ring_exchange");
  for (const char* key : {"proj_fprop", "fc2_fprop"}) c[key] = With("pipeline");
  for (const char* key : {"qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad"}) c[key] = With("bulk");
  for (const char* key : {"proj_wgrad", "fc2_wgrad"}) c[key] = With("external");
  return c;
}

UbCfgs Changed(UbCfgs c, const std::string& key, const std::string& method) {
  c[key] = With(method);
  return c;
}

UbCfgs Without(UbCfgs c, const std::string& key) {
  c.erase(key);
  return c;
}

TEST(TeUbRules, TesOwnDefaultsAndItsOverridesPass) {
  EXPECT_THAT(TeRuleViolations(TeDefaults()), IsEmpty());
  // A non-bulk column dgrad with its wgrad left out.
  EXPECT_THAT(TeRuleViolations(Without(Changed(TeDefaults(), "qkv_dgrad", "ring_exchange"), "qkv_wgrad")), IsEmpty());
  EXPECT_THAT(TeRuleViolations(Without(Changed(TeDefaults(), "fc1_dgrad", "pipeline"), "fc1_wgrad")), IsEmpty());
  // Keys left out take TE's default: a bulk dgrad, a ring_exchange dgrad.
  EXPECT_THAT(TeRuleViolations(Without(TeDefaults(), "qkv_dgrad")), IsEmpty());
  EXPECT_THAT(TeRuleViolations(Without(TeDefaults(), "proj_dgrad")), IsEmpty());
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "proj_fprop", "ring_exchange")), IsEmpty());
}

TEST(TeUbRules, ExternalNeedsItsDgradOnRingExchange) {
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "fc2_dgrad", "bulk")),
              ElementsAre("fc2_dgrad: bulk is not a method TE takes for fc2_dgrad (it takes ring_exchange)",
                          HasSubstr("fc2_wgrad: external beside fc2_dgrad on bulk")));
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "proj_dgrad", "pipeline")),
              ElementsAre("proj_dgrad: pipeline on an all-gather GEMM",
                          HasSubstr("proj_wgrad: external beside proj_dgrad on pipeline")));
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "proj_wgrad", "pipeline")),
              ElementsAre("proj_wgrad: pipeline is not a method TE takes for proj_wgrad (it takes external)"));
}

TEST(TeUbRules, AColumnWgradOnlyBesideABulkDgradAndThenBulk) {
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "qkv_dgrad", "ring_exchange")),
              ElementsAre(HasSubstr("qkv_wgrad: an entry beside qkv_dgrad on ring_exchange")));
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "fc1_dgrad", "pipeline")),
              ElementsAre(HasSubstr("fc1_wgrad: an entry beside fc1_dgrad on pipeline")));
  EXPECT_THAT(TeRuleViolations(Changed(TeDefaults(), "qkv_wgrad", "ring_exchange")),
              ElementsAre("qkv_wgrad: ring_exchange is not a method TE takes for qkv_wgrad (it takes bulk)"));
}

TEST(TeUbRules, NoPipelineOnAnAllGatherKey) {
  for (const char* key : {"qkv_fprop", "fc1_fprop", "proj_dgrad", "fc2_dgrad", "qkv_wgrad", "fc1_wgrad"}) {
    const std::vector<std::string> bad = TeRuleViolations(Changed(TeDefaults(), key, "pipeline"));
    ASSERT_FALSE(bad.empty()) << key;
    EXPECT_EQ(bad[0], std::string(key) + ": pipeline on an all-gather GEMM");
  }
}

TEST(TeUbRules, UnknownKeysFieldsAndMethods) {
  UbCfgs c = TeDefaults();
  c["attn_fprop"] = With("ring_exchange");
  c["qkv_fprop"]["num_max_streams"] = "4";  // TE fixes its GEMM streams (3) itself
  c["fc2_fprop"]["method"] = "serial";
  EXPECT_THAT(TeRuleViolations(c), ElementsAre("attn_fprop: not a key TE reads", "fc2_fprop: method 'serial'",
                                               "qkv_fprop: unknown field num_max_streams"));
}

}  // namespace
}  // namespace braid::testing_te
