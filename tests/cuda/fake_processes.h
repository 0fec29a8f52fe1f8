// The cuda backend as P processes of one job, in one test: P threads, each a
// "process" with its own Launcher (a ThreadLauncher), its own fake process
// (FakeGpu::SeamsForDevice: its own memory) and its own CudaBackend whose
// Bootstrap is the LauncherBootstrap adapter, all in one fake world so that
// NCCL peers meet and windows map.
#pragma once

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "braid/cuda_backend.h"
#include "braid/cuda_fakes.h"
#include "thread_launcher.h"

namespace braid::testing {

struct ProcessRun {
  std::vector<Result<RunOutput>> outs;
  cuda::FakeGpuStats stats;
};

// Runs `plans[r]` on process r (one plan for all when `plans` has one). A
// rank whose run fails with anything but bad input ends the job as the
// command would (AbortJob): here by aborting the group, which releases its
// peers' waits.
inline ProcessRun RunAsFakeProcesses(const std::vector<const Plan*>& plans, const RunOptions& run, int world,
                                     CudaBackendOptions options = {}, cuda::FakeGpuConfig config = {},
                                     int ranks_per_host = 0, std::vector<ClockOffset> offsets = {}) {
  cuda::FakeGpu gpu(config);
  cuda::InProcessGroup group(world, std::chrono::seconds(120));
  const int per_host = ranks_per_host > 0 ? ranks_per_host : world;
  ProcessRun result;
  std::vector<std::optional<Result<RunOutput>>> outs(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      ThreadLauncher launcher(group, r, world, per_host, offsets);
      CudaBackend backend(gpu.SeamsForDevice(launcher.local_rank()), options, &launcher);
      outs[size_t(r)] = backend.Run(*plans[plans.size() == 1 ? 0 : size_t(r)], run);
      const Status& s = outs[size_t(r)]->status();
      if (!s.ok() && !s.is_user_error()) group.Member(r).Abort(s.message());
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& o : outs) result.outs.push_back(std::move(*o));
  result.stats = gpu.stats();
  return result;
}

inline ProcessRun RunAsFakeProcesses(const Plan& plan, const RunOptions& run, int world,
                                     CudaBackendOptions options = {}, cuda::FakeGpuConfig config = {},
                                     int ranks_per_host = 0, std::vector<ClockOffset> offsets = {}) {
  return RunAsFakeProcesses(std::vector<const Plan*>{&plan}, run, world, std::move(options), std::move(config),
                            ranks_per_host, std::move(offsets));
}

}  // namespace braid::testing
