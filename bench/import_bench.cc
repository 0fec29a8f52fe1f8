// Import throughput of the trace importers, in MB/s of uncompressed JSON
// (Kineto) and events/s (nsys):
//   - a synthetic Kineto trace made by replicating a realistic block of
//     events (CPU op, runtime call, flow events, kernel with full args);
//   - the shared real traces when $BRAID_SHARED_DIR/traces exists (as .gz,
//     including inflate, and as plain JSON).
// The goal is >= 100 MB/s of uncompressed JSON. Rates are per wall-clock second.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "braid/trace_import.h"
#include "shared_dir.h"

namespace {

namespace fs = std::filesystem;

fs::path ScratchDir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("braid_import_bench_" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(fs::temp_directory_path() / ("braid_import_bench_" + std::to_string(::getpid())), ec);
    });
    return d;
  }();
  return dir;
}

void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// One training step's worth of Kineto events per block, as PyTorch 2.x
// writes them (field order and argument lists included).
std::string SyntheticKineto(int blocks) {
  std::string out = R"J({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},
"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
"traceEvents": [
)J";
  out.reserve(size_t(blocks) * 1400 + 4096);
  char buf[4096];
  for (int i = 0; i < blocks; ++i) {
    const long long ts = 1700000000000LL + i * 40LL;
    const int corr = 1000 + i;
    if (i % 1000 == 0) {
      std::snprintf(
          buf, sizeof buf,
          R"J(  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 4242, "tid": 4242, "ts": %lld.000, "dur": 40000.000, "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d}},
)J",
          i / 1000, ts, corr, i);
      out += buf;
    }
    const bool comm = i % 7 == 0;
    std::snprintf(
        buf, sizeof buf,
        R"J(  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 4242, "tid": 4242, "ts": %lld.125, "dur": 21.310, "args": {"External id": %d, "Sequence number": %d, "Fwd thread id": 0, "Record function id": 0, "Concrete Inputs": ["", "", "", "1", "1"], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[1], [4096, 1], [1, 4096], [], []], "Input Dims": [[4096], [8192, 4096], [4096, 4096], [], []], "Ev Idx": %d}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": %lld.500, "dur": 4.250, "args": {"External id": %d, "cbid": 211, "correlation": %d}},
  {"ph": "s", "id": %d, "pid": 4242, "tid": 4242, "ts": %lld.500, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, "ts": %lld.750, "dur": 31.125, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": %d, "correlation": %d, "registers per thread": 168, "shared memory": 213504, "blocks per SM": 1, "warps per SM": 12, "grid": [132, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %%": 19}},
  {"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %lld.750, "cat": "ac2g", "name": "ac2g", "bp": "e"},
)J",
        ts, corr, i, i, ts, corr, corr, corr, ts,
        comm ? "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
             : "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
               "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
               "cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecialized> > > >("
               "cutlass::gemm::kernel::GemmUniversal::Params)",
        comm ? 20 : 7, ts + 10, corr, comm ? 20 : 7, corr, corr, comm ? 20 : 7, ts + 10);
    out += buf;
  }
  out +=
      R"J(  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1700000000000, "dur": 1}
], "traceName": "synthetic.json"})J";
  return out;
}

std::string Gunzip(const fs::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  std::string out;
  if (!f) return out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  gzclose(f);
  return out;
}

void RunKinetoImport(benchmark::State& state, const std::string& path, double json_bytes) {
  size_t events = 0;
  for (auto _ : state) {
    auto trace = braid::ImportKineto({path});
    if (!trace.ok()) {
      state.SkipWithError(trace.status().message().c_str());
      return;
    }
    events = trace->ranks[0].events.size();
    benchmark::DoNotOptimize(trace);
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["MB"] = benchmark::Counter(json_bytes / 1e6 * iters, benchmark::Counter::kIsRate);
  state.counters["events"] = benchmark::Counter(static_cast<double>(events) * iters, benchmark::Counter::kIsRate);
  state.counters["json_MB"] = json_bytes / 1e6;
}

void BM_KinetoSynthetic(benchmark::State& state) {
  static const std::string path = [] {
    const fs::path p = ScratchDir() / "synthetic.json";
    WriteFile(p, SyntheticKineto(60000));
    return p.string();
  }();
  RunKinetoImport(state, path, static_cast<double>(fs::file_size(path)));
}
BENCHMARK(BM_KinetoSynthetic)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

fs::path SharedTraces() { return braid::testing_shared::SharedPath(braid::testing_shared::kSharedTraces); }

// arg 0 / 1: the two shared Kineto traces; `plain`: inflated beforehand.
void BM_KinetoShared(benchmark::State& state, bool plain) {
  static const char* kNames[] = {"a100_2rank_nccl_data.json.gz", "a100_8rank_control_rank3.json.gz"};
  const fs::path dir = SharedTraces();
  if (dir.empty()) {
    state.SkipWithError(braid::testing_shared::SharedAbsent(braid::testing_shared::kSharedTraces).c_str());
    return;
  }
  const fs::path gz = dir / "kineto" / kNames[state.range(0)];
  const std::string json = Gunzip(gz);
  std::string path = gz.string();
  if (plain) {
    const fs::path p = ScratchDir() / (std::string(kNames[state.range(0)]) + ".json");
    WriteFile(p, json);
    path = p.string();
  }
  state.SetLabel(kNames[state.range(0)]);
  RunKinetoImport(state, path, static_cast<double>(json.size()));
}
BENCHMARK_CAPTURE(BM_KinetoShared, gz, false)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_KinetoShared, plain, true)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_NsysH100(benchmark::State& state) {
  const fs::path dir = SharedTraces();
  if (dir.empty()) {
    state.SkipWithError(braid::testing_shared::SharedAbsent(braid::testing_shared::kSharedTraces).c_str());
    return;
  }
  const std::string path = (dir / "nsys" / "h100_2gpu_mfu_before.sqlite").string();
  size_t events = 0;
  for (auto _ : state) {
    auto trace = braid::ImportNsys(path);
    if (!trace.ok()) {
      state.SkipWithError(trace.status().message().c_str());
      return;
    }
    events = trace->ranks[0].events.size() + trace->ranks[1].events.size();
  }
  state.counters["events"] = benchmark::Counter(static_cast<double>(events) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NsysH100)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
