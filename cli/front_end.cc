#include "front_end.h"

#include "backend_choice.h"
#include "mpi_job.h"

namespace braid::cli {

CpuBackendOptions CpuOptionsOf(const BackendArgs& a) {
  return CpuOptionsOf(a.link_gbps, a.link_latency_us, a.cuda, a.timeout_option);
}

Status CheckTimeoutApplies(const BackendArgs& a) { return CheckTimeoutApplies(a.backend, a.timeout_option); }

Result<std::unique_ptr<Backend>> MakeBackend(const BackendArgs& a, const SimHardware& hw) {
  return MakeBackend(a.backend, hw, CpuOptionsOf(a), a.cuda);
}

double MpiTimeout(const BackendArgs& a) { return MpiTimeout(a.cuda, a.timeout_option); }

Result<MpiJobStart> StartMpiJob(const BackendArgs& a, uint64_t arguments_hash) {
  BRAID_ASSIGN_OR_RETURN(auto launcher, MakeLauncher(MpiTimeout(a)));
  MpiJobStart start{std::move(launcher), Status::Ok()};
  start.checked = SameAsRank0(*start.world, arguments_hash, kArgumentsDiffer);
  return start;
}

int DispatchCommand(const std::function<int()>& in_process, const std::function<int()>& under_mpi) {
  return StartedByMpiLauncher() ? under_mpi() : in_process();
}

}  // namespace braid::cli
