#include "mpi_job.h"

#include <cmath>
#include <optional>

#include "braid/backend_kind.h"
#include "field_flags.h"

namespace braid::cli {

double MpiTimeout(const CudaBackendOptions& cuda, const CLI::Option* timeout_option) {
  const bool given = timeout_option != nullptr && timeout_option->count() > 0;
  return given && CheckMpiTimeout(cuda).ok() ? cuda.timeout_s : kMpiDefaultTimeoutS;
}

Status CheckMpiTimeout(const CudaBackendOptions& cuda) {
  if (!(cuda.timeout_s > 0) || !std::isfinite(cuda.timeout_s)) {
    return Status::Invalid("--timeout must be a positive number of seconds");
  }
  return Status::Ok();
}

Status CheckJobShape(const Launcher& world, const std::string& backend, int tp, bool cuda_allowed,
                     const std::string& ranks_flag) {
  if (world.world_size() == 1) {
    if (tp > 1) {
      return Status::Invalid(ranks_flag + " " + std::to_string(tp) +
                             " needs as many MPI processes; mpirun started 1 (use mpirun -np " + std::to_string(tp) +
                             ", or run without mpirun for ranks as threads)");
    }
    return Status::Ok();
  }
  const std::optional<BackendKind> kind = BackendKindNamed(backend);
  if (kind != BackendKind::kCpu && !(cuda_allowed && kind == BackendKind::kCuda)) {
    return Status::Invalid(std::string("under mpirun, ranks run as processes on --backend ") +
                           (cuda_allowed ? "cpu or cuda" : "cpu") + " only (got '" + OneLine(backend) + "')");
  }
  if (tp != world.world_size()) {
    return Status::Invalid(ranks_flag + " " + std::to_string(tp) + " must equal the number of MPI processes (" +
                           std::to_string(world.world_size()) + ")");
  }
  return Status::Ok();
}

std::string RankPrefixed(const Launcher& world, const Status& s) {
  const std::string who = "rank " + std::to_string(world.rank());
  const bool named = s.message().rfind(who + " ", 0) == 0 || s.message().rfind(who + ":", 0) == 0;
  const std::string message = FlagWorded(s.message());
  return named ? message : who + ": " + message;
}

}  // namespace braid::cli
