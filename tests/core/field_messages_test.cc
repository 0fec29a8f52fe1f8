// Library messages name the fields their callers set, in backticks, never the
// braid command's flags: a C++ or Python caller never passed --streams. (The
// command line maps them back: tests/cli/field_flags_test.cc.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/run_options_check.h"
#include "braid/workload.h"
#include "tiny_model.h"

namespace braid {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void ExpectField(const Status& s, const std::string& message) {
  EXPECT_TRUE(s.is_user_error()) << s.message();
  EXPECT_EQ(s.message(), message);
  EXPECT_THAT(s.message(), Not(HasSubstr("--")));
}

TEST(FieldMessages, OverlapConfigNamesItsFields) {
  OverlapConfig c;
  c.comm_lanes = 9;
  ExpectField(c.ValidateKnobs(), "`comm_lanes` must be between 1 and 8 (got 9)");
  c = OverlapConfig();
  c.chunks = 0;
  ExpectField(c.ValidateKnobs(), "`chunks` must be at least 1 (got 0)");
  c = OverlapConfig();
  c.comm_sms = -1;
  ExpectField(c.ValidateKnobs(), "`comm_sms` must not be negative");
  c = OverlapConfig();
  c.algorithm = Algorithm::kSerial;
  c.chunks = 2;
  ExpectField(c.Validate(Workload{Op::kGemmRs, 16, 16, 16, DType::kBf16, 2}),
              "serial runs the collective whole: it takes no `chunks` or `splits`");
}

TEST(FieldMessages, WorkloadsNameTheirFields) {
  ExpectField(Workload{Op::kGemmRs, 16, 16, 16, DType::kBf16, 0}.Validate(), "`tp` must be at least 1 (got 0)");
  const ModelSpec m = testing_core::TinyModel();
  ExpectField(MakeLayerWorkload(m, 0, 1, Phase::kPrefill, 2, DType::kBf16).status(),
              "`seq` must be at least 1 (got 0)");
  ExpectField(MakeLayerWorkload(m, 8, 0, Phase::kPrefill, 2, DType::kBf16).status(),
              "`batch` must be at least 1 (got 0)");
}

TEST(FieldMessages, RunOptionsNameTheirFields) {
  RunOptions o;
  o.iters = -1;
  ExpectField(CheckRunOptions(o), "`warmup` and `iters` must be between 0 and 1000000");
}

}  // namespace
}  // namespace braid
