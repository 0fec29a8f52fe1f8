// Helpers for the db tests: a scratch directory, sample runs, raw SQLite.
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "braid/store.h"
#include "temp_dir.h"

namespace braid::testing {

// A fresh directory, removed with everything in it at the end of the test.
using ::braid::testing_files::TempDir;

inline RunMeta SampleMeta() {
  RunMeta m;
  m.source = "measured";
  m.backend = "sim";
  m.topology = "h100-sxm";
  m.workload.op = Op::kGemmRs;
  m.workload.m = 4096;
  m.workload.n = 8192;
  m.workload.k = 28672;
  m.workload.dtype = DType::kBf16;
  m.workload.tp = 8;
  m.config_json = R"({"algorithm":"ring","chunks":2})";
  m.host = "testhost";
  m.braid_version = "0.1.0";
  m.git_revision = "abc1234";
  m.iterations = 5;
  m.warmup = 2;
  m.notes_json = R"({"verify":{"ok":true}})";
  return m;
}

// Events of `iterations` x `ranks` x `lanes` with `per_lane` steps each, in
// storage order; names cycle through `distinct_names`.
inline std::vector<Event> MakeEvents(int iterations, int ranks, int lanes, int per_lane, int distinct_names = 16) {
  std::vector<Event> events;
  events.reserve(size_t(iterations) * size_t(ranks) * size_t(lanes) * size_t(per_lane));
  for (int r = 0; r < ranks; ++r) {
    for (int l = 0; l < lanes; ++l) {
      for (int it = 0; it < iterations; ++it) {
        for (int s = 0; s < per_lane; ++s) {
          Event& e = events.emplace_back();
          e.iteration = it;
          e.rank = r;
          e.lane = l;
          e.kind = l == 0 ? EventKind::kCompute : EventKind::kComm;
          const int i = (it * per_lane + s);
          e.name = (l == 0 ? "gemm chunk " : "send step ") + std::to_string(i % distinct_names);
          e.start_ns = int64_t(it) * 1'000'000 + int64_t(s) * 100 + l * 7;
          e.end_ns = e.start_ns + 90;
          e.bytes = l == 0 ? 0 : 1 << 20;
          e.flops = l == 0 ? 2.0 * 512 * 512 * 512 : 0;
          e.chunk = s % 4;
          e.step = s;
          e.peer = l == 0 ? -1 : (r + 1) % ranks;
          e.correlation = l == 0 ? -1 : int64_t(it) * 100000 + s;
        }
      }
    }
  }
  return events;
}

inline std::vector<LaneInfo> MakeLanes(int ranks, int lanes) {
  std::vector<LaneInfo> out;
  for (int r = 0; r < ranks; ++r) {
    for (int l = 0; l < lanes; ++l) {
      out.push_back({r, l, l == 0 ? "compute" : "comm" + std::to_string(l), l == 0 ? "compute" : "comm"});
    }
  }
  return out;
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string bytes(size_t(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes.data(), std::streamsize(bytes.size()));
  return bytes;
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A plain SQLite connection for checking what the Store wrote.
class RawDb {
 public:
  explicit RawDb(const std::string& path) { sqlite3_open(path.c_str(), &db_); }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  // Runs SQL; returns "" on success, else the error message.
  std::string Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return "";
    std::string msg = err != nullptr ? err : "error";
    sqlite3_free(err);
    return msg;
  }
  // The first column of the first row as text ("" when no row).
  std::string Text(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return "prepare failed";
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out;
  }
  int64_t Int(const std::string& sql) {
    const std::string t = Text(sql);
    return t.empty() ? 0 : std::stoll(t);
  }
  sqlite3* get() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace braid::testing
