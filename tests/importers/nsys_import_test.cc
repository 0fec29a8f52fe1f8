// The nsys importer on small hand-made SQLite exports.
#include <gtest/gtest.h>

#include <algorithm>

#include "braid/trace_import.h"
#include "test_files.h"

namespace braid {
namespace {

using testing_files::MakeSqlite;
using testing_files::TempDir;

// globalPid / globalTid: process 100 in bits 24..47 (tid 1 in the low bits).
constexpr int64_t kPid100 = int64_t{100} << 24;

// Two devices. Device 0: GEMM [0, 100) and an NCCL kernel [50, 150) on two
// streams, a memcpy [200, 300). Device 1: one kernel [10, 20) whose only
// name is the short one. Only the required tables plus a memcpy table,
// runtime calls and NVTX ranges; no TARGET_INFO tables, no memset table.
std::string TwoDeviceSql() {
  const std::string pid = std::to_string(kPid100);
  const std::string tid = std::to_string(kPid100 + 1);
  return "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
         "INSERT INTO StringIds VALUES (1, 'void gemm_kernel<128>(float*)'), (2, 'gemm_kernel'),"
         " (3, 'ncclDevKernel_SendRecv(ncclDevComm*)'), (4, 'ncclDevKernel_SendRecv'), (5, 'short_only'),"
         " (6, 'cudaLaunchKernel'), (7, 'ProfilerStep#1'), (8, 'cudaMemcpyAsync');"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
         " deviceId INTEGER NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,"
         " globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
         " (0, 100, 0, 1, 7, 11, " +
         pid +
         ", 1, 2),"
         " (50, 150, 0, 1, 13, 12, " +
         pid +
         ", 3, 4),"
         " (10, 20, 1, 1, 7, 21, " +
         pid +
         ", 99, 5);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
         " deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
         " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (200, 300, 0, 7, 13, " +
         pid +
         ", 4096, 1, 1, 2);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
         " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-20, -10, " +
         tid + ", 11, 6), (-5, -1, " + tid + ", 21, 6), (-3, -2, " + tid +
         ", 13, 8);"
         "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
         " text TEXT, globalTid INTEGER, textId INTEGER);"
         "INSERT INTO NVTX_EVENTS VALUES (-30, 400, 59, NULL, " +
         tid + ", 7), (-25, NULL, 34, 'a mark', " + tid + ", NULL);";
}

TEST(ImportNsysSmall, OneRankPerDeviceWithHtaFiguresInNs) {
  TempDir dir;
  const std::string path = dir.Path("two.sqlite");
  MakeSqlite(path, TwoDeviceSql());
  auto trace = ImportNsys(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->format, "nsys");
  ASSERT_EQ(trace->ranks.size(), 2u);
  const ImportedRank& d0 = trace->ranks[0];
  EXPECT_EQ(d0.rank, 0);
  EXPECT_EQ(d0.world, 2);
  EXPECT_EQ(d0.device, 0);
  EXPECT_EQ(d0.hta.compute, 100);
  EXPECT_EQ(d0.hta.comm, 100);
  EXPECT_EQ(d0.hta.overlap, 50);
  EXPECT_DOUBLE_EQ(d0.hta.overlap_pct, 50);
  EXPECT_DOUBLE_EQ(d0.hta.compute_pct, 33.33);  // span [0, 300)
  EXPECT_DOUBLE_EQ(d0.hta.idle_pct, 16.67);     // busy 150 + 100
  const ImportedRank& d1 = trace->ranks[1];
  EXPECT_EQ(d1.device, 1);
  EXPECT_EQ(d1.hta.compute, 10);
  EXPECT_DOUBLE_EQ(d1.hta.compute_pct, 100);
}

TEST(ImportNsysSmall, LanesEventsAndMarkers) {
  TempDir dir;
  const std::string path = dir.Path("two.sqlite");
  MakeSqlite(path, TwoDeviceSql());
  auto trace = ImportNsys(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const ImportedRank& d0 = trace->ranks[0];
  std::vector<std::string> lanes;
  for (const ImportedLane& l : d0.lanes) lanes.push_back(l.name);
  EXPECT_EQ(lanes, (std::vector<std::string>{"stream 7", "stream 13", "cpu runtime", "nvtx"}));

  auto find = [](const ImportedRank& r, std::string_view name) -> const Event* {
    for (const Event& e : r.events) {
      if (e.name == name) return &e;
    }
    return nullptr;
  };
  const Event* gemm = find(d0, "void gemm_kernel<128>(float*)");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, EventKind::kCompute);
  EXPECT_EQ(gemm->correlation, 11);
  const Event* nccl = find(d0, "ncclDevKernel_SendRecv(ncclDevComm*)");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->kind, EventKind::kComm);
  EXPECT_EQ(nccl->lane, 1);
  const Event* copy = find(d0, "Memcpy HtoD (Pinned -> Device)");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, EventKind::kCopy);
  EXPECT_EQ(copy->bytes, 4096);
  const Event* step = find(d0, "ProfilerStep#1");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->kind, EventKind::kMarker);
  EXPECT_EQ(step->lane, 3);
  EXPECT_EQ(find(d0, "a mark"), nullptr);  // marks are not ranges
  // Runtime calls go to the device whose work they launched.
  int launches = 0;
  for (const Event& e : d0.events) launches += e.name == "cudaLaunchKernel";
  EXPECT_EQ(launches, 1);
  const ImportedRank& d1 = trace->ranks[1];
  const Event* short_only = find(d1, "short_only");  // demangled name missing: short name
  ASSERT_NE(short_only, nullptr);
  EXPECT_EQ(short_only->rank, 1);
  EXPECT_NE(find(d1, "ProfilerStep#1"), nullptr);  // NVTX goes to every device of its process
}

TEST(ImportNsysSmall, TargetInfoNamesLanes) {
  TempDir dir;
  const std::string path = dir.Path("info.sqlite");
  MakeSqlite(path,
             TwoDeviceSql() +
                 "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER NOT NULL, name TEXT);"
                 "INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 80GB HBM3');"
                 "CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER, vmId INTEGER,"
                 " processId INTEGER NOT NULL, contextId INTEGER, priority INTEGER NOT NULL, flag INTEGER NOT NULL);"
                 "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (13, 0, 1, 100, 1, 4294967295, 2);");
  auto trace = ImportNsys(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->ranks[0].lanes[0].name, "stream 7 (NVIDIA H100 80GB HBM3)");
  EXPECT_EQ(trace->ranks[0].lanes[1].name, "stream 13 (NVIDIA H100 80GB HBM3, non-blocking, priority -1)");
  EXPECT_EQ(trace->ranks[1].lanes[0].name, "stream 7");
}

}  // namespace
}  // namespace braid
