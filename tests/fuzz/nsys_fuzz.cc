// libFuzzer target: the bytes are written to a file and imported as an
// Nsight Systems SQLite export.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "fuzz_checks.h"

namespace {

std::string ScratchFile() {
  const char* shm = "/dev/shm";
  const std::filesystem::path dir = std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
  return (dir / ("braid_nsys_fuzz_" + std::to_string(::getpid()) + ".sqlite")).string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = ScratchFile();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  braid::Result<braid::ImportedTrace> trace = braid::ImportNsys(path);
  // A fuzzed header can say WAL mode; SQLite then leaves -wal / -shm files.
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  if (!trace.ok()) {
    const std::string& msg = trace.status().message();
    braid::fuzz::Require(msg.rfind(path + ": ", 0) == 0, "error names the file");
    braid::fuzz::Require(msg.find('\n') == std::string::npos, ("one-line error: " + msg).c_str());
    return 0;
  }
  braid::fuzz::CheckTrace(*trace);
  braid::fuzz::CheckGemmOverlap(*trace);
  return 0;
}
