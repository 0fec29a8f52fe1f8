// `mpirun -np U braid run --backend cpu --algo a2a|a2a_direct`: the Ulysses
// all-to-alls beside the QKV projection (ag_gemm) and the output projection
// (gemm_rs), and a whole Ulysses block (`--sp ulysses`), verify across
// processes at U = 2 and 4.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "mpi_runner.h"

namespace mpi_ulysses_test {
namespace {

using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

class MpiUlysses : public ::testing::TestWithParam<std::tuple<int, std::string, std::string>> {};

TEST_P(MpiUlysses, EveryRankVerifiesItsBlock) {
  BRAID_SKIP_WITHOUT_MPI();
  const auto& [np, op, algo] = GetParam();
  const Outcome o =
      MpiBraid(np, "run --backend cpu --op " + op + " --m " + std::to_string(16 * np) + " --n " +
                       std::to_string(12 * np) + " --k " + std::to_string(8 * np) + " --tp " + std::to_string(np) +
                       " --algo " + algo + " --iters 1 --warmup 0 --verify --json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-5);
  EXPECT_EQ(j["config"]["algorithm"], algo);
  EXPECT_THAT(j["notes"].dump(), HasSubstr(std::to_string(np) + " ranks as MPI processes"));
}

std::string Name(const ::testing::TestParamInfo<MpiUlysses::ParamType>& p) {
  return "np" + std::to_string(std::get<0>(p.param)) + "_" + std::get<1>(p.param) + "_" + std::get<2>(p.param);
}

class MpiUlyssesBlock : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(MpiUlyssesBlock, EveryRankVerifiesTheBlock) {
  BRAID_SKIP_WITHOUT_MPI();
  const auto& [np, algo] = GetParam();
  const std::string model = TempPath("mpi_ulysses_block_np" + std::to_string(np) + algo + ".toml");
  std::ofstream(model) << "name = \"ulysses-block\"\nhidden = 64\nheads = 8\nkv_heads = 4\nhead_dim = 8\n"
                          "ffn = 96\ngated_mlp = true\nlayers = 2\nsource = \"a test block\"\n";
  const Outcome o =
      MpiBraid(np, "run --backend cpu --model " + model + " --seq 32 --batch 2 --tp " + std::to_string(np) +
                       " --sp ulysses --algo " + algo + " --iters 1 --warmup 0 --verify --json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-5);
  EXPECT_EQ(j["workload"]["ulysses"], true);
  EXPECT_EQ(j["workload"]["ops"].size(), 5u);
  EXPECT_THAT(j["notes"].dump(), HasSubstr(std::to_string(np) + " ranks as MPI processes"));
}

INSTANTIATE_TEST_SUITE_P(Block, MpiUlyssesBlock,
                         ::testing::Combine(::testing::Values(2, 4), ::testing::Values("a2a", "a2a_direct")),
                         [](const ::testing::TestParamInfo<MpiUlyssesBlock::ParamType>& p) {
                           return "np" + std::to_string(std::get<0>(p.param)) + "_" + std::get<1>(p.param);
                         });

INSTANTIATE_TEST_SUITE_P(QkvAndOutput, MpiUlysses,
                         ::testing::Combine(::testing::Values(2, 4), ::testing::Values("ag_gemm", "gemm_rs"),
                                            ::testing::Values("a2a", "a2a_direct")),
                         Name);

}  // namespace
}  // namespace mpi_ulysses_test
