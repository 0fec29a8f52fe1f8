// Started by mpirun (cuda_mpi_test.cc): the cuda backend's Bootstrap adapter
// over the real MPI launcher, and the backend's one-rank-per-process checks
// agreed over MPI (on fakes: no GPU here). Prints "ok rank R" and exits 0,
// or prints what failed and exits 1.
#include <cstdio>
#include <string>

#include "braid/cuda_backend.h"
#include "braid/cuda_fakes.h"
#include "braid/launcher.h"
#include "braid/launcher_bootstrap.h"
#include "braid/planner.h"

namespace {

using braid::Status;

Status Check(bool ok, const std::string& what) { return ok ? Status::Ok() : Status::Internal(what); }

braid::Plan RingPlan(int p, braid::CommEngine engine = braid::CommEngine::kSm) {
  const braid::Workload w{braid::Op::kAgGemm, 96, 48, 96, braid::DType::kBf16, p};
  braid::OverlapConfig cfg;
  cfg.algorithm = braid::Algorithm::kRing;
  cfg.comm_engine = engine;
  auto plan = braid::BuildPlan(w, cfg);
  if (!plan.ok()) std::printf("plan: %s\n", plan.status().message().c_str());
  return plan.ok() ? *plan : braid::Plan();
}

Status Bootstrap(braid::Launcher& world) {
  braid::cuda::LauncherBootstrap boot(world);
  BRAID_RETURN_IF_ERROR(Check(boot.rank() == world.rank() && boot.size() == world.world_size(), "rank/size"));
  // What the NCCL bootstrap does: rank 0's 128-byte id to every rank.
  braid::cuda::Bytes id(128, 0);
  if (world.is_root()) {
    for (size_t i = 0; i < id.size(); ++i) id[i] = uint8_t(i * 7 + 3);
  }
  BRAID_RETURN_IF_ERROR(boot.Broadcast(id, 0));
  for (size_t i = 0; i < id.size(); ++i) BRAID_RETURN_IF_ERROR(Check(id[i] == uint8_t(i * 7 + 3), "broadcast id"));
  BRAID_RETURN_IF_ERROR(Check(!boot.Broadcast(id, 1).ok(), "a broadcast from rank 1 was accepted"));
  auto all = boot.AllGather(braid::cuda::Bytes(size_t(world.rank()) + 1, uint8_t(world.rank())));
  BRAID_RETURN_IF_ERROR(all.status());
  BRAID_RETURN_IF_ERROR(Check(int(all->size()) == world.world_size(), "all-gather size"));
  for (int q = 0; q < world.world_size(); ++q) {
    BRAID_RETURN_IF_ERROR(Check((*all)[size_t(q)] == braid::cuda::Bytes(size_t(q) + 1, uint8_t(q)),
                                "all-gather of rank " + std::to_string(q)));
  }
  BRAID_RETURN_IF_ERROR(boot.Barrier());
  return Status::Ok();
}

// Bad input found on one rank only is every rank's verdict, before anything runs.
Status AgreedRefusals(braid::Launcher& world) {
  braid::RunOptions run;
  run.iters = 1;
  run.warmup = 0;
  braid::cuda::FakeGpuConfig one_gpu;
  one_gpu.devices = 1;
  braid::cuda::FakeGpu gpu(one_gpu);
  braid::CudaBackend backend(gpu.SeamsForDevice(world.local_rank()), {}, &world);
  auto out = backend.Run(RingPlan(world.world_size()), run);
  BRAID_RETURN_IF_ERROR(
      Check(!out.ok() && out.status().code() == braid::StatusCode::kInvalidArgument &&
                out.status().message().find("rank 1: this host has 1 GPUs but at least 2 MPI") != std::string::npos,
            "too few GPUs: " + out.status().message()));
  auto wrong_tp = backend.Run(RingPlan(world.world_size() == 2 ? 4 : 2), run);
  BRAID_RETURN_IF_ERROR(Check(!wrong_tp.ok() && wrong_tp.status().message().find("must equal the number of MPI "
                                                                                 "processes") != std::string::npos,
                              "--tp against the world: " + wrong_tp.status().message()));
  BRAID_RETURN_IF_ERROR(Check(gpu.stats().comms == 0, "a communicator was created"));
  // --comm-engine ce between GPUs that are not CUDA peers: every rank's
  // verdict, gathered over MPI, before any communicator or window.
  braid::cuda::FakeGpuConfig no_p2p;
  no_p2p.peer_access = false;
  braid::cuda::FakeGpu gpus(no_p2p);
  braid::CudaBackend ce_backend(gpus.SeamsForDevice(world.local_rank()), {}, &world);
  auto ce = ce_backend.Run(RingPlan(world.world_size(), braid::CommEngine::kCopyEngine), run);
  BRAID_RETURN_IF_ERROR(
      Check(!ce.ok() && ce.status().code() == braid::StatusCode::kInvalidArgument &&
                ce.status().message().find("`comm_engine` ce needs peer access, and GPU 0 (rank 0 and rank 1) "
                                           "cannot map GPU 1's memory") != std::string::npos,
            "ce without peer access: " + ce.status().message()));
  BRAID_RETURN_IF_ERROR(Check(gpus.stats().comms == 0, "a communicator was created for ce"));
  return Status::Ok();
}

}  // namespace

int main() {
  auto world = braid::MakeMpiLauncher(60);
  if (!world.ok()) {
    std::printf("launcher: %s\n", world.status().message().c_str());
    return 1;
  }
  Status s = Bootstrap(**world);
  if (s.ok()) s = AgreedRefusals(**world);
  if (!s.ok()) {
    std::printf("rank %d: %s\n", (*world)->rank(), s.message().c_str());
    return 1;
  }
  std::printf("ok rank %d\n", (*world)->rank());
  std::fflush(stdout);
  return 0;
}
