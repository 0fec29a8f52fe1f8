// A job's Kineto files read in parallel and as a directory: the result is
// the same whatever the thread count, the first bad file in order is the one
// named, and files of different jobs are refused.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "braid/trace_import.h"
#include "file_bytes.h"
#include "shared_dir.h"
#include "test_files.h"
#include "trace_dir.h"

namespace braid {
namespace {

using testing_files::Gzip;
using testing_files::TempDir;

// Rank `rank` of a job of `world`, its kernels shifted by `shift` µs so that
// every rank's figures differ.
std::string RankTrace(int rank, int world, int shift) {
  const auto n = [](int v) { return std::to_string(v); };
  return R"J({"distributedInfo": {"rank": )J" + n(rank) + R"J(, "world_size": )J" + n(world) +
         R"J(}, "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": )J" +
         n(100 + shift) +
         R"J(, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "void gemm()", "ts": )J" +
         n(110 + shift) + R"J(, "dur": )J" + n(20 + rank) +
         R"J(, "args": {"stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllGather", "ts": )J" +
         n(115 + shift) + R"J(, "dur": 30, "args": {"stream": 20, "correlation": 2}}]})J";
}

// A job of `world` plain-JSON rank files r0.json … in `dir`, rank r's
// kernels shifted by r * `shift` µs.
std::vector<std::string> RankFiles(TempDir& dir, int world, int shift) {
  std::vector<std::string> files;
  for (int r = 0; r < world; ++r) {
    files.push_back(dir.Write("r" + std::to_string(r) + ".json", RankTrace(r, world, shift * r)));
  }
  return files;
}

void ExpectSameRanks(const ImportedTrace& a, const ImportedTrace& b) {
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  EXPECT_EQ(a.files, b.files);
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const ImportedRank &x = a.ranks[i], &y = b.ranks[i];
    EXPECT_EQ(x.rank, y.rank);
    EXPECT_EQ(x.world, y.world);
    EXPECT_EQ(x.hta.comm, y.hta.comm);
    EXPECT_EQ(x.hta.overlap, y.hta.overlap);
    EXPECT_EQ(x.hta.overlap_pct, y.hta.overlap_pct);
    ASSERT_EQ(x.events.size(), y.events.size());
    for (size_t e = 0; e < x.events.size(); ++e) {
      EXPECT_EQ(x.events[e].name, y.events[e].name);
      EXPECT_EQ(x.events[e].start_ns, y.events[e].start_ns);
      EXPECT_EQ(x.events[e].end_ns, y.events[e].end_ns);
      EXPECT_EQ(x.events[e].rank, y.events[e].rank);
    }
  }
}

TEST(ImportKinetoJob, ADirectoryIsItsTraceFilesInNameOrder) {
  TempDir dir;
  std::vector<std::string> files;
  for (int r = 0; r < 12; ++r) {
    const std::string name = "rank_" + std::string(r < 10 ? "0" : "") + std::to_string(r);
    files.push_back(r % 2 ? dir.Write(name + ".json.gz", Gzip(RankTrace(r, 12, r)))
                          : dir.Write(name + ".pt.trace.json", RankTrace(r, 12, r)));
  }
  dir.Write("notes.txt", "not a trace");
  std::filesystem::create_directory(dir.Path("sub.json"));  // a directory, though named like a trace
  auto listed = ImportKineto({dir.Path("")});
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  auto given = ImportKineto(files);
  ASSERT_TRUE(given.ok()) << given.status().message();
  ExpectSameRanks(*listed, *given);
  ASSERT_EQ(listed->ranks.size(), 12u);
  for (int r = 0; r < 12; ++r) EXPECT_EQ(listed->ranks[size_t(r)].rank, r);
}

TEST(ImportKinetoJob, AnyThreadCountGivesTheSameTrace) {
  TempDir dir;
  const std::vector<std::string> files = RankFiles(dir, 16, 3);
  auto one = ImportKineto(files, {.threads = 1});
  ASSERT_TRUE(one.ok()) << one.status().message();
  for (const int threads : {2, 5, 16, 0}) {
    auto many = ImportKineto(files, {.threads = threads});
    ASSERT_TRUE(many.ok()) << many.status().message();
    ExpectSameRanks(*one, *many);
  }
}

// A caller that stores each rank and gives its events back (braid import)
// gets every rank as ImportKineto gives it: a worker reading into a buffer
// given back starts from an empty one.
TEST(ImportKinetoJob, RanksReadIntoBuffersGivenBackAreTheSame) {
  TempDir dir;
  const std::vector<std::string> files = RankFiles(dir, 12, 5);
  auto whole = ImportKineto(files, {.threads = 1});
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  for (const int threads : {1, 2, 3}) {
    auto job = KinetoJob::Start(files, {.threads = threads});
    ASSERT_TRUE(job.ok()) << job.status().message();
    ImportedTrace streamed;
    streamed.files = files;
    for (;;) {
      auto rank = (*job)->Next();
      ASSERT_TRUE(rank.ok()) << rank.status().message();
      if (*rank == nullptr) break;
      streamed.ranks.push_back(**rank);              // a copy, as a store keeps it
      (*job)->GiveBack(std::move((*rank)->events));  // the worker's next buffer
    }
    ASSERT_TRUE((*job)->Finish().ok());
    ExpectSameRanks(*whole, streamed);
  }
}

// Workers stay one file each ahead of the caller; a caller that stops
// taking ranks (a failed store) and drops the job does not wait on them.
TEST(ImportKinetoJob, AJobDroppedAfterOneRankEndsWithoutReadingTheRest) {
  TempDir dir;
  std::vector<std::string> files = RankFiles(dir, 40, 1);
  for (const int threads : {1, 2, 4}) {
    auto job = KinetoJob::Start(files, {.threads = threads});
    ASSERT_TRUE(job.ok()) << job.status().message();
    auto first = (*job)->Next();
    ASSERT_TRUE(first.ok()) << first.status().message();
    ASSERT_NE(*first, nullptr);
    EXPECT_EQ((*first)->rank, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the workers are waiting for their turn by now
    job->reset();                                                // and are let go
  }
  // A bad first file: Next() fails, the workers ahead of it are let go.
  files[0] = dir.Write("bad.json", "{not json");
  auto job = KinetoJob::Start(files, {.threads = 2});
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_FALSE((*job)->Next().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  job->reset();
}

// Of several bad files the first in order is reported, however the workers
// happened to finish.
TEST(ImportKinetoJob, TheFirstBadFileInOrderIsTheOneNamed) {
  TempDir dir;
  std::vector<std::string> files;
  for (int r = 0; r < 10; ++r) {
    const bool bad = r == 3 || r == 7 || r == 9;
    files.push_back(dir.Write("r" + std::to_string(r) + ".json", bad ? "{not json" : RankTrace(r, 10, r)));
  }
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto t = ImportKineto(files, {.threads = 4});
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().message().rfind(files[3] + ": ", 0), 0u) << t.status().message();
  }
}

TEST(ImportKinetoJob, FilesOfDifferentJobsOrTheSameRankTwiceAreRefused) {
  TempDir mixed;
  mixed.Write("a.json", RankTrace(0, 2, 0));
  mixed.Write("b.json", RankTrace(1, 4, 0));
  auto t = ImportKineto({mixed.Path("")});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("world_size 4, but"), std::string::npos) << t.status().message();

  TempDir twice;
  twice.Write("a.json", RankTrace(1, 2, 0));
  twice.Write("b.json", RankTrace(1, 2, 5));
  auto d = ImportKineto({twice.Path("")});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("rank 1 again"), std::string::npos) << d.status().message();
}

TEST(ImportKinetoJob, ASpecialFileInTheDirectoryIsRefusedByWhatItIs) {
  TempDir dir;
  dir.Write("a.json", RankTrace(0, 2, 0));
  const std::string fifo = dir.Path("b.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto t = ImportKineto({dir.Path("")});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(fifo + ": is a FIFO"), std::string::npos) << t.status().message();
}

TEST(ImportKinetoJob, ADirectoryOfMoreFilesThanTheCapIsRefusedBeforeAnyRead) {
  TempDir dir;
  for (size_t i = 0; i <= kMaxTraceFiles; ++i) dir.Write("t" + std::to_string(i) + ".json", "");
  auto t = ImportKineto({dir.Path("")});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("more than 4096 trace files"), std::string::npos) << t.status().message();
}

// The shared real traces as ranks of one 8-rank job (their distributedInfo
// rewritten): each rank's figures and events equal those of its file alone.
TEST(ImportKinetoJob, SharedTracesAsOneJobMatchEachFileAlone) {
  BRAID_SKIP_WITHOUT_SHARED(testing_shared::kSharedTraces);
  const auto kineto = testing_shared::SharedPath(testing_shared::kSharedTraces) / "kineto";
  const std::vector<std::string> sources = {(kineto / "a100_2rank_nccl_data.json.gz").string(),
                                            (kineto / "a100_8rank_control_rank3.json.gz").string()};
  std::vector<std::string> texts;
  for (const std::string& s : sources) {
    importers::PaddedBytes json;
    ASSERT_TRUE(importers::Gunzip(testing_files::FileBytes(s), s, &json).ok());
    texts.emplace_back(json.view());
  }
  TempDir dir;
  constexpr int kRanks = 8;
  for (int r = 0; r < kRanks; ++r) {
    std::string text = texts[size_t(r % 2)];
    const size_t at = text.find("\"distributedInfo\"");
    ASSERT_NE(at, std::string::npos);
    size_t end = text.find('{', at);
    for (int depth = 0; end < text.size(); ++end) {  // its object, nested ones (pg_config) included
      depth += text[end] == '{' ? 1 : text[end] == '}' ? -1 : 0;
      if (depth == 0) break;
    }
    ASSERT_LT(end, text.size());
    text.replace(
        at, end + 1 - at,
        R"("distributedInfo": {"rank": )" + std::to_string(r) + R"(, "world_size": )" + std::to_string(kRanks) + "}");
    dir.Write("rank" + std::to_string(r) + ".json", text);
  }
  auto job = ImportKineto({dir.Path("")}, {.threads = 2});
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_EQ(job->ranks.size(), size_t(kRanks));
  for (int r = 0; r < kRanks; ++r) {
    auto alone = ImportKineto({sources[size_t(r % 2)]});
    ASSERT_TRUE(alone.ok());
    const ImportedRank &j = job->ranks[size_t(r)], &a = alone->ranks[0];
    EXPECT_EQ(j.rank, r);
    EXPECT_EQ(j.world, kRanks);
    EXPECT_EQ(j.hta.comm, a.hta.comm);
    EXPECT_EQ(j.hta.compute, a.hta.compute);
    EXPECT_EQ(j.hta.overlap_pct, a.hta.overlap_pct);
    EXPECT_EQ(j.hta.idle_pct, a.hta.idle_pct);
    ASSERT_EQ(j.events.size(), a.events.size());
    EXPECT_EQ(j.events.back().name, a.events.back().name);
    EXPECT_EQ(j.events.back().start_ns, a.events.back().start_ns);
  }
}

}  // namespace
}  // namespace braid
