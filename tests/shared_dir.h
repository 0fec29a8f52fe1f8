// The shared folder of real traces and measurements (a folder named shared beside the
// checkout): $BRAID_SHARED_DIR when set, else the path the build compiles in
// (braid_test() defines BRAID_DEFAULT_SHARED_DIR). It is never copied into the
// tree: tests that need a part of it skip with a message where it is absent.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#ifndef BRAID_DEFAULT_SHARED_DIR
#error "BRAID_DEFAULT_SHARED_DIR must name the shared folder (braid_test() defines it)"
#endif

namespace braid::testing_shared {

// A part of the shared folder, and the file that shows it is really there (a
// missing or partial copy counts as absent).
struct SharedPart {
  const char* folder;
  const char* marker;
};

inline constexpr SharedPart kSharedTraces{"traces", "expected.json"};
inline constexpr SharedPart kSharedMeasured{"calibration/h100-measured", "gemm_bf16.csv"};

inline std::filesystem::path SharedDir() {
  const char* env = std::getenv("BRAID_SHARED_DIR");
  return std::filesystem::path(env != nullptr && *env != '\0' ? env : BRAID_DEFAULT_SHARED_DIR);
}

// The part's folder, or an empty path when its marker file is absent.
inline std::filesystem::path SharedPath(const SharedPart& part) {
  const std::filesystem::path dir = SharedDir() / part.folder;
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / part.marker, ec) ? dir : std::filesystem::path();
}

// The line a test skips with when the part is absent.
inline std::string SharedAbsent(const SharedPart& part) {
  return "the shared files are absent (no " + (SharedDir() / part.folder / part.marker).string() +
         "); set BRAID_SHARED_DIR to the shared folder to run this test";
}

}  // namespace braid::testing_shared

// Skips the current test, saying which file is missing, unless `part` is there.
#define BRAID_SKIP_WITHOUT_SHARED(part) \
  if (::braid::testing_shared::SharedPath(part).empty()) GTEST_SKIP() << ::braid::testing_shared::SharedAbsent(part)
