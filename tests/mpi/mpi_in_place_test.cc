// Sends between processes go out in place (no staging copy): a plan's send
// step from rows nothing rewrites until the iteration ends, and every ring
// step of a collective. Messages here are 96 KiB, above OpenMPI's eager
// limit, so the receiver reads the sender's memory while the sender runs on:
// a source written before its send completed (a collective's accumulator
// received into again, a lane that did not settle) shows as a wrong product
// under --verify. One comm lane and many chunks keep many sends in flight
// on one thread.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "mpi_runner.h"

namespace mpi_in_place_test {
namespace {

using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Outcome;

// 8 sub-chunks of 32 rows per rank; a message is 32 rows of 768 floats
// (ag_gemm passes rows of A: K = 768; gemm_rs / gemm_ar pass rows of C: N = 768).
std::string Workload(const std::string& op, int np) {
  const bool gathers = op == "ag_gemm";
  return "run --backend cpu --op " + op + " --m " + std::to_string(256 * np) + " --n " + (gathers ? "24" : "768") +
         " --k " + (gathers ? "768" : "24") + " --tp " + std::to_string(np) +
         " --iters 3 --warmup 1 --seed 11 --streams 1 --verify --json --no-db ";
}

class MpiInPlace : public ::testing::TestWithParam<std::tuple<int, std::string, std::string>> {};

TEST_P(MpiInPlace, LargeMessagesFromOneLaneVerify) {
  BRAID_SKIP_WITHOUT_MPI();
  const auto& [np, op, algo] = GetParam();
  const Outcome o = MpiBraid(np, Workload(op, np) + "--algo " + algo + " --chunks 8");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>()) << o.out;
  EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-4);
}

std::string InPlaceName(const ::testing::TestParamInfo<MpiInPlace::ParamType>& p) {
  return "np" + std::to_string(std::get<0>(p.param)) + "_" + std::get<1>(p.param) + "_" + std::get<2>(p.param);
}

// ring: the plan's own send steps; chunked: ring collectives (all-gather,
// reduce-scatter with its two accumulators, all-reduce).
INSTANTIATE_TEST_SUITE_P(TwoThreeFourProcesses, MpiInPlace,
                         ::testing::Combine(::testing::Values(2, 3, 4), ::testing::Values("ag_gemm", "gemm_rs"),
                                            ::testing::Values("ring", "chunked")),
                         InPlaceName);
INSTANTIATE_TEST_SUITE_P(AllReduce, MpiInPlace,
                         ::testing::Combine(::testing::Values(2, 3, 4), ::testing::Values("gemm_ar"),
                                            ::testing::Values("chunked")),
                         InPlaceName);

}  // namespace
}  // namespace mpi_in_place_test
