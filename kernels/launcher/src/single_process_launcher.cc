// World size 1: every collective is a no-op on this process's own data.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "braid/launcher.h"

namespace braid {

namespace {

class SingleProcessLauncher : public Launcher {
 public:
  int world_size() const override { return 1; }
  int rank() const override { return 0; }
  int local_rank() const override { return 0; }
  std::string host_name() const override {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "localhost";
    return name;
  }
  Status Broadcast(Blob&) override { return Status::Ok(); }
  Result<std::vector<Blob>> Gather(const Blob& blob) override { return std::vector<Blob>{blob}; }
  Status Barrier() override { return Status::Ok(); }
  Result<std::vector<ClockOffset>> MeasureClockOffsets(int) override { return std::vector<ClockOffset>{ClockOffset{}}; }
  [[noreturn]] void Abort(const std::string& message, int exit_code) override {
    if (!message.empty()) std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    std::_Exit(exit_code);
  }
};

}  // namespace

std::unique_ptr<Launcher> MakeSingleProcessLauncher() { return std::make_unique<SingleProcessLauncher>(); }

bool StartedByMpiLauncher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

Result<std::unique_ptr<Launcher>> MakeLauncher(double timeout_s) {
  if (!StartedByMpiLauncher()) return MakeSingleProcessLauncher();
  // Built without MPI this is Unavailable: each process would otherwise run
  // the whole job and write the store.
  return MakeMpiLauncher(timeout_s);
}

#if !defined(BRAID_HAVE_MPI)
bool MpiBuiltIn() { return false; }
Result<std::unique_ptr<Launcher>> MakeMpiLauncher(double) {
  return Status::Unavailable("this braid was built without MPI (BRAID_WITH_MPI=OFF or no MPI found)");
}
#endif

}  // namespace braid
