// Fixtures for braid-view's tests: scratch stores holding a hand-made run
// whose figures are known, and real sim runs (ring, chunked) of one workload.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "braid/event.h"
#include "braid/store.h"

namespace braid::view::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("braid_gui_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

// The file's bytes ("" when it cannot be read).
inline std::string FileBytes(const std::string& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

// Two ranks, two iterations 1000 ns apart; rank 1 is rank 0 shifted by 10 ns.
// Per rank and iteration (offsets from the iteration's start):
//   lane 0 "compute": gemm0 [0,100) gemm1 [100,200)
//   lane 1 "comm":    send0 [50,150) (correlation 7 + iteration, peer = other rank)
//                     send1 [200,260) (nothing under it: exposed)
//   lane 2 "misc":    reduce [150,170) copy [170,190) sync [260,270)
// So compute 200, comm 160, overlap 100, exposed 60, tail 60 (200 -> 260).
std::vector<Event> HandEvents();
std::vector<LaneInfo> HandLanes();

// One compute lane of `n` events `width` ns wide, `gap` ns apart.
std::vector<Event> DenseEvents(int n, int64_t width, int64_t gap);

// A real sim run of gemm_rs M=N=K=8192 bf16 P=4 on h100-sxm with `algorithm`
// ("ring" | "chunked" | "serial") and `chunks`, 3 iterations.
struct SimRun {
  RunMeta meta;
  std::vector<LaneInfo> lanes;
  std::vector<Event> events;
  std::vector<MetricRow> metrics;
};
SimRun MakeSimRun(const std::string& algorithm, int chunks);

// Writes a run (metric rows computed from the events) and returns its id.
int64_t WriteRun(Store& store, const std::vector<Event>& events, const std::vector<LaneInfo>& lanes,
                 const std::string& config_json = R"({"algorithm":"ring","chunks":1})");
int64_t WriteSimRun(Store& store, const SimRun& run);

}  // namespace braid::view::testing
