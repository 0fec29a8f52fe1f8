// The four real traces in the shared data folder's traces/ against expected.json (values from
// an independent implementation of HTA's definitions).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "braid/trace_import.h"
#include "shared_dir.h"

namespace braid {
namespace {

namespace fs = std::filesystem;

constexpr double kPctTolerance = 0.05;

fs::path TracesDir() { return testing_shared::SharedPath(testing_shared::kSharedTraces); }

nlohmann::json Expected(const std::string& trace) {
  std::ifstream in(TracesDir() / "expected.json");
  return nlohmann::json::parse(in).at(trace);
}

struct Counts {
  std::map<EventKind, int> by_kind;
  std::set<int> lanes;
  int max_iteration = 0;
};

Counts Count(const ImportedRank& r) {
  Counts c;
  for (const Event& e : r.events) {
    ++c.by_kind[e.kind];
    c.lanes.insert(e.lane);
    c.max_iteration = std::max(c.max_iteration, e.iteration);
    EXPECT_LE(e.start_ns, e.end_ns);
    EXPECT_EQ(e.rank, r.rank);
  }
  return c;
}

std::vector<std::string> LaneNames(const ImportedRank& r) {
  std::vector<std::string> names;
  for (const ImportedLane& l : r.lanes) names.push_back(l.name);
  return names;
}

void ExpectKinetoFigures(const ImportedRank& r, const nlohmann::json& want) {
  EXPECT_EQ(r.rank, want.at("rank").get<int>());
  EXPECT_EQ(r.world, want.at("world").get<int>());
  EXPECT_EQ(r.hta.comm, want.at("comm_us").get<int64_t>());
  EXPECT_EQ(r.hta.compute, want.at("comp_us").get<int64_t>());
  EXPECT_EQ(r.hta.overlap, want.at("overlap_us").get<int64_t>());
  EXPECT_NEAR(r.hta.overlap_pct, want.at("overlap_pct").get<double>(), kPctTolerance);
  EXPECT_NEAR(r.hta.idle_pct, want.at("idle_pct").get<double>(), kPctTolerance);
  EXPECT_NEAR(r.hta.compute_pct, want.at("compute_pct").get<double>(), kPctTolerance);
}

TEST(ImportSharedTraces, KinetoA100TwoRankNccl) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string name = "kineto/a100_2rank_nccl_data.json.gz";
  auto trace = ImportKineto({(TracesDir() / name).string()});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->ranks.size(), 1u);
  const ImportedRank& r = trace->ranks[0];
  ExpectKinetoFigures(r, Expected(name));
  EXPECT_EQ(r.device, 0);
  EXPECT_EQ(LaneNames(r), (std::vector<std::string>{"stream 7", "stream 40", "cpu runtime", "gpu annotations"}));
  const Counts c = Count(r);
  // 3774 GPU events (2700 kernels, 960 memcpys, 114 memsets), 8740 runtime
  // calls and 30 record_function ranges on the GPU timeline.
  EXPECT_EQ(r.events.size(), 3774u + 8740u + 30u);
  EXPECT_EQ(c.by_kind.at(EventKind::kMarker), 8740 + 30);
  EXPECT_EQ(c.by_kind.at(EventKind::kCopy), 960 + 114);
  EXPECT_GT(c.by_kind.at(EventKind::kComm), 0);
  EXPECT_GT(c.by_kind.at(EventKind::kCompute), 1000);
  EXPECT_EQ(c.lanes.size(), 4u);
  EXPECT_EQ(c.max_iteration, 2);  // ProfilerStep#4..#6
}

TEST(ImportSharedTraces, KinetoA100EightRankControlRank3) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string name = "kineto/a100_8rank_control_rank3.json.gz";
  auto trace = ImportKineto({(TracesDir() / name).string()});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const ImportedRank& r = trace->ranks[0];
  ExpectKinetoFigures(r, Expected(name));
  EXPECT_EQ(r.device, 3);
  EXPECT_EQ(LaneNames(r),
            (std::vector<std::string>{"stream 7", "stream 20", "stream 21", "stream 22", "cpu runtime", "cpu ops"}));
  const Counts c = Count(r);
  // GPU events, runtime calls, and the GEMM ops recorded with their shapes.
  EXPECT_EQ(r.events.size(), 9450u + 24692u + 2304u);
  EXPECT_EQ(c.by_kind.at(EventKind::kMarker), 24692 + 2304);
  EXPECT_EQ(c.max_iteration, 5);  // six ProfilerSteps
  EXPECT_GT(c.by_kind.at(EventKind::kComm), 0);
}

// Two real traces of different jobs (rank 0 of 2, rank 3 of 8) are not one
// job: refused naming both files; each alone keeps its own rank and world.
TEST(ImportSharedTraces, KinetoFilesOfTwoJobsAreRefusedTogether) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string two = (TracesDir() / "kineto/a100_2rank_nccl_data.json.gz").string();
  const std::string eight = (TracesDir() / "kineto/a100_8rank_control_rank3.json.gz").string();
  auto both = ImportKineto({two, eight});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(),
            eight + ": world_size 8, but " + two + " says 2 (the traces of one job agree on it)");
  auto alone = ImportKineto({eight});
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  EXPECT_EQ(alone->ranks[0].rank, 3);  // distributedInfo wins over file order
  EXPECT_EQ(alone->ranks[0].world, 8);
}

void ExpectNsysFigures(const ImportedRank& r, const nlohmann::json& want) {
  EXPECT_EQ(r.hta.comm, want.at("comm_ns").get<int64_t>());
  EXPECT_EQ(r.hta.compute, want.at("comp_ns").get<int64_t>());
  EXPECT_EQ(r.hta.overlap, want.at("overlap_ns").get<int64_t>());
  EXPECT_NEAR(r.hta.idle_pct, want.at("idle_pct").get<double>(), kPctTolerance);
  EXPECT_NEAR(r.hta.compute_pct, want.at("compute_pct").get<double>(), kPctTolerance);
}

TEST(ImportSharedTraces, NsysRtx3080Mock) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string name = "nsys/rtx3080_mock.sqlite";
  auto trace = ImportNsys((TracesDir() / name).string());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->ranks.size(), 1u);
  const ImportedRank& r = trace->ranks[0];
  ExpectNsysFigures(r, Expected(name).at("0"));
  EXPECT_EQ(r.device, 0);
  EXPECT_EQ(r.world, 1);
  // TARGET_INFO_GPU names the GPU; TARGET_INFO_CUDA_STREAM says stream 7 is the null stream.
  ASSERT_FALSE(r.lanes.empty());
  EXPECT_EQ(r.lanes[0].name, "stream 7 (NVIDIA GeForce RTX 3080, null stream)");
  const Counts c = Count(r);
  EXPECT_EQ(c.by_kind.at(EventKind::kCompute), 2);
  EXPECT_EQ(c.by_kind.at(EventKind::kCopy), 1);
  EXPECT_EQ(c.by_kind.at(EventKind::kMarker), 9);  // runtime calls; this export has no NVTX table
}

TEST(ImportSharedTraces, NsysH100TwoGpu) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const std::string name = "nsys/h100_2gpu_mfu_before.sqlite";
  auto trace = ImportNsys((TracesDir() / name).string());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->ranks.size(), 2u);
  const nlohmann::json want = Expected(name);
  for (int d = 0; d < 2; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    const ImportedRank& r = trace->ranks[size_t(d)];
    EXPECT_EQ(r.rank, d);
    EXPECT_EQ(r.world, 2);
    EXPECT_EQ(r.device, d);
    ExpectNsysFigures(r, want.at(std::to_string(d)));
    EXPECT_DOUBLE_EQ(r.hta.overlap_pct, 0);  // SendRecv runs on the compute stream
    const std::vector<std::string> lanes = LaneNames(r);
    ASSERT_EQ(lanes.size(), 3u);  // one stream, runtime calls, NVTX ranges
    EXPECT_EQ(lanes[0].rfind("stream " + std::string(d == 0 ? "7" : "15"), 0), 0u) << lanes[0];
    EXPECT_EQ(lanes[1], "cpu runtime");
    EXPECT_EQ(lanes[2], "nvtx");
    const Counts c = Count(r);
    EXPECT_EQ(c.by_kind.at(EventKind::kComm), 33);  // ncclDevKernel_SendRecv
    EXPECT_GT(c.by_kind.at(EventKind::kCompute), 1900);
    EXPECT_GT(c.by_kind.at(EventKind::kMarker), 1000);
  }
}

}  // namespace
}  // namespace braid
