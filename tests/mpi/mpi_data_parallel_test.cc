// `mpirun -np DP braid run --backend cpu --dp-op ...`: a DP op's ranks are
// its DP group as processes; gradients reduce to the unsharded reference and
// gathered weights multiply as the full weights do, for DP 2 and 4 beside
// TP 1 and 2; and a job of the wrong size is refused once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "mpi_runner.h"

namespace mpi_data_parallel_test {
namespace {

using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

std::string SmallModel() {
  std::string path = TempPath("mpi_dp_model.toml");
  std::ofstream(path) << "name = \"dp-small\"\nhidden = 256\nheads = 8\nkv_heads = 4\nhead_dim = 32\n"
                         "ffn = 512\ngated_mlp = true\nlayers = 2\nsource = \"a test block\"\n";
  return path;
}

class MpiDataParallel : public ::testing::TestWithParam<std::tuple<int, int, std::string>> {};

TEST_P(MpiDataParallel, EveryDpRankVerifiesItsShard) {
  BRAID_SKIP_WITHOUT_MPI();
  const auto& [dp, tp, op] = GetParam();
  const Outcome o = MpiBraid(dp, "run --backend cpu --model " + SmallModel() + " --seq 64 --tp " + std::to_string(tp) +
                                     " --phase train --dp " + std::to_string(dp) + " --zero 3 --dp-op " + op +
                                     " --algo ring --verify --iters 1 --warmup 0 "
                                     "--json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-4);
  EXPECT_EQ(j["ranks"].size(), size_t(dp));
  EXPECT_THAT(j["notes"].dump(), HasSubstr(std::to_string(dp) + " ranks as MPI processes"));
}

std::string Name(const ::testing::TestParamInfo<MpiDataParallel::ParamType>& p) {
  std::string op = std::get<2>(p.param);
  for (char& c : op) c = c == '.' ? '_' : c;
  return "dp" + std::to_string(std::get<0>(p.param)) + "_tp" + std::to_string(std::get<1>(p.param)) + "_" + op;
}

INSTANTIATE_TEST_SUITE_P(GradientsAndGathers, MpiDataParallel,
                         ::testing::Combine(::testing::Values(2, 4), ::testing::Values(1, 2),
                                            ::testing::Values("fc1.grad_rs", "fc2.param_ag")),
                         Name);

TEST(MpiDataParallelShape, AJobOfTheTpSizeIsNotTheDpGroup) {
  BRAID_SKIP_WITHOUT_MPI();
  const Outcome o = MpiBraid(2, "run --backend cpu --model " + SmallModel() +
                                    " --seq 64 --tp 2 --phase train --dp 4 --zero 3 --dp-op fc1.grad_rs --algo ring "
                                    "--iters 1 --no-db");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--dp 4 must equal the number of MPI processes (2)"));
}

}  // namespace
}  // namespace mpi_data_parallel_test
