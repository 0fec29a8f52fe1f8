// `mpirun -np P braid run --backend cpu`: every op and algorithm verifies
// across processes, and the run reports and stores what the thread mode does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "mpi_runner.h"

namespace {

using braid::testing_mpi::Braid;
using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::QueryOne;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

// Small sizes (the CPU is shared); M divisible by every P and chunk count used.
std::string Workload(const std::string& op, int np) {
  return "run --backend cpu --op " + op + " --m " + std::to_string(48 * np) + " --n 48 --k 96 --tp " +
         std::to_string(np) + " --iters 2 --warmup 1 --seed 7 ";
}

std::string AlgoFlags(const std::string& algo) { return "--algo " + algo + (algo == "serial" ? "" : " --chunks 2"); }

class MpiVerify : public ::testing::TestWithParam<std::tuple<int, std::string, std::string>> {};

TEST_P(MpiVerify, EveryRankChecksItsBlockAndRankZeroReportsTheWorst) {
  BRAID_SKIP_WITHOUT_MPI();
  const auto& [np, op, algo] = GetParam();
  const Outcome o = MpiBraid(np, Workload(op, np) + AlgoFlags(algo) + " --verify --json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "") << "a good run prints nothing on stderr";
  const auto j = nlohmann::json::parse(o.out);  // one object: only rank 0 printed
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-4);
  EXPECT_GE(j["verify"]["worst_rank"].get<int>(), 0);
  EXPECT_LT(j["verify"]["worst_rank"].get<int>(), np);
  ASSERT_EQ(j["ranks"].size(), size_t(np));
  for (int r = 0; r < np; ++r) {
    EXPECT_EQ(j["ranks"][size_t(r)]["rank"], r);
    EXPECT_GT(j["ranks"][size_t(r)]["metrics"]["comm_ns"]["p50"].get<double>(), 0) << "rank " << r;
  }
  EXPECT_THAT(j["notes"].dump(), HasSubstr(std::to_string(np) + " ranks as MPI processes"));
  EXPECT_THAT(j["notes"].dump(), HasSubstr("uncertainty"));
}

std::string VerifyName(const ::testing::TestParamInfo<MpiVerify::ParamType>& p) {
  return "np" + std::to_string(std::get<0>(p.param)) + "_" + std::get<1>(p.param) + "_" + std::get<2>(p.param);
}

INSTANTIATE_TEST_SUITE_P(TwoAndFourProcesses, MpiVerify,
                         ::testing::Combine(::testing::Values(2, 4), ::testing::Values("ag_gemm", "gemm_rs", "gemm_ar"),
                                            ::testing::Values("serial", "chunked", "ring", "bidir_ring")),
                         VerifyName);
// An odd ring: the blocks a rank passes on are not its neighbour's halves.
INSTANTIATE_TEST_SUITE_P(ThreeProcesses, MpiVerify,
                         ::testing::Combine(::testing::Values(3), ::testing::Values("ag_gemm", "gemm_rs", "gemm_ar"),
                                            ::testing::Values("ring", "bidir_ring")),
                         VerifyName);
// direct: every rank sends to every other one, r+s at step s (not gemm_ar).
INSTANTIATE_TEST_SUITE_P(DirectTwoThreeAndFourProcesses, MpiVerify,
                         ::testing::Combine(::testing::Values(2, 3, 4), ::testing::Values("ag_gemm", "gemm_rs"),
                                            ::testing::Values("direct")),
                         VerifyName);

// A training step across processes: every GEMM of the forward and the
// backward (bulk pairs, external wgrads) verifies on every rank against one
// reference forward and backward of the block, which every process computes.
TEST(MpiRun, TrainPhaseVerifiesEveryPassAcrossProcesses) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string model = TempPath("train_model.toml");
  {
    std::ofstream out(model);
    out << "name = \"tiny\"\nhidden = 48\nheads = 12\nkv_heads = 12\nhead_dim = 4\nffn = 96\n"
           "gated_mlp = true\nlayers = 1\nsource = \"a test\"\n";
  }
  for (const auto& [np, algo] : {std::pair{2, "serial"}, {3, "bulk"}, {3, "ring"}, {4, "bidir_ring"}, {3, "direct"}}) {
    const Outcome o = MpiBraid(np, "run --backend cpu --model " + model + " --seq 24 --tp " + std::to_string(np) +
                                       " --phase train --iters 1 --warmup 0 --verify --json --no-db --algo " + algo);
    ASSERT_EQ(o.code, 0) << algo << ": " << o.err;
    const auto j = nlohmann::json::parse(o.out);
    EXPECT_TRUE(j["verify"]["ok"].get<bool>()) << algo;
    EXPECT_LT(j["verify"]["max_rel_error"].get<double>(), 1e-5) << algo;
    EXPECT_EQ(j["workload"]["ops"].size(), 14u) << algo;
    EXPECT_THAT(j["notes"].dump(), HasSubstr("one fp32 reference forward and backward of the block")) << algo;
  }
  std::remove(model.c_str());
}

std::set<std::string> Keys(const nlohmann::json& o) {
  std::set<std::string> k;
  for (auto it = o.begin(); it != o.end(); ++it) k.insert(it.key());
  return k;
}

TEST(MpiRun, SameReportAndStoredEventsAsRanksAsThreads) {
  BRAID_SKIP_WITHOUT_MPI();
  const std::string threads_db = TempPath("threads.db"), procs_db = TempPath("procs.db");
  std::remove(threads_db.c_str());
  std::remove(procs_db.c_str());
  const std::string args = Workload("gemm_rs", 3) + "--algo ring --chunks 2 --verify --json ";
  const Outcome t = Braid(args + "--db " + threads_db);
  ASSERT_EQ(t.code, 0) << t.err;
  const Outcome p = MpiBraid(3, args + "--db " + procs_db);
  ASSERT_EQ(p.code, 0) << p.err;
  const auto jt = nlohmann::json::parse(t.out), jp = nlohmann::json::parse(p.out);
  EXPECT_EQ(Keys(jt), Keys(jp));
  EXPECT_EQ(Keys(jt["metrics"]), Keys(jp["metrics"]));
  EXPECT_EQ(Keys(jt["ranks"][0]["metrics"]), Keys(jp["ranks"][0]["metrics"]));
  EXPECT_EQ(jt["workload"], jp["workload"]);
  EXPECT_EQ(jt["config"], jp["config"]);
  EXPECT_EQ(jp["run"], 1);
  // The same steps ran: event counts per kind and rank, and the bytes moved.
  const std::string per_kind =
      "SELECT group_concat(kind || ':' || rank || ':' || n || ':' || b, ',') FROM "
      "(SELECT kind, rank, count(*) AS n, sum(bytes) AS b FROM events GROUP BY kind, rank ORDER BY kind, rank)";
  const std::string kinds_threads = QueryOne(threads_db, per_kind);
  EXPECT_FALSE(kinds_threads.empty());
  EXPECT_EQ(kinds_threads, QueryOne(procs_db, per_kind));
  // Aligned clocks: within a rank, an iteration's events do not overlap on one lane.
  EXPECT_EQ(QueryOne(procs_db,
                     "SELECT count(*) FROM events a JOIN events b ON a.run = b.run AND a.rank = b.rank AND "
                     "a.lane = b.lane AND a.iteration = b.iteration AND a.start_ns < b.start_ns AND "
                     "b.start_ns < a.end_ns"),
            "0");
  EXPECT_EQ(QueryOne(procs_db, "PRAGMA integrity_check"), "ok");
  std::remove(threads_db.c_str());
  std::remove(procs_db.c_str());
}

// A bound too large for the clock (1e300 s) is no bound: every wait must
// still wait, not fail at once with a deadline the overflow put in the past.
TEST(MpiRun, AHugeTimeoutIsNoBoundNotAnExpiredOne) {
  BRAID_SKIP_WITHOUT_MPI();
  for (const char* algo : {"ring", "serial"}) {
    const Outcome o =
        MpiBraid(2, Workload("gemm_rs", 2) + AlgoFlags(algo) + " --verify --timeout 1e300 --json --no-db");
    EXPECT_EQ(o.code, 0) << algo << ": " << o.err;
  }
}

TEST(MpiRun, LinkEmulationPacesTransfersBetweenProcesses) {
  BRAID_SKIP_WITHOUT_MPI();
  // 2 ranks, serial gemm_rs (M=96, N=48): each rank sends 48x48 floats =
  // 9216 B once per iteration; at 0.01 Gbit/s that alone holds the link 7.4 ms.
  const Outcome o = MpiBraid(2, Workload("gemm_rs", 2) + "--algo serial --link-gbps 0.01 --json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_GE(j["metrics"]["comm_ns"]["p50"].get<double>(), 7.3e6);
}

TEST(MpiRun, PairsOnDifferentNodesArePacedAtTheInterNodeLink) {
  BRAID_SKIP_WITHOUT_MPI();
  // One GPU per node: ranks 0 and 1 are on different nodes. The inter-node
  // link is a tenth of the intra-node one, so at --link-gbps 0.1 the pair
  // runs at 0.01 Gbit/s: 9216 B per iteration hold the link 7.4 ms.
  const std::string topo = TempPath("two_nodes.toml");
  {
    std::ofstream f(topo);
    f << "name = \"two-nodes\"\ngpu = \"h100-sxm\"\ngpus_per_node = 1\nnodes = 2\n"
         "[intra]\nkind = \"nvswitch\"\nbandwidth_gbs = 100.0\nlatency_us = 2.0\nsource = \"test\"\n"
         "[inter]\nkind = \"infiniband\"\nbandwidth_gbs = 10.0\nlatency_us = 6.0\nsource = \"test\"\n";
  }
  const Outcome o =
      MpiBraid(2, Workload("gemm_rs", 2) + "--algo serial --link-gbps 0.1 --topology " + topo + " --json --no-db");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_GE(j["metrics"]["comm_ns"]["p50"].get<double>(), 7.3e6);
  EXPECT_THAT(j["notes"].dump(), HasSubstr("pairs on different nodes paced at 0.01 Gbit/s, 0 us"));
  EXPECT_EQ(j["topology"], "two-nodes") << "its nodes placed the ranks";
  std::remove(topo.c_str());
}

}  // namespace
