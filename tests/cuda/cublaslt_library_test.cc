// cuBLASLt is opened on first use, not at start (real/cublaslt_library.h):
// these run without a GPU, on the toolkit's library.
#include "real/cublaslt_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace braid::cuda {
namespace {

bool MappedInThisProcess(const std::string& soname) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find(soname) != std::string::npos) return true;
  }
  return false;
}

TEST(CublasLtLibrary, IsNotLoadedUntilTheFirstHandleAsksForIt) {
  // ctest runs each test in its own process: nothing here has opened it yet.
  EXPECT_FALSE(MappedInThisProcess(CublasLtSoname()));
  auto lt = LoadCublasLt();
  ASSERT_TRUE(lt.ok()) << lt.status().message();
  EXPECT_TRUE(MappedInThisProcess(CublasLtSoname()));
}

TEST(CublasLtLibrary, TableCallsTheLibraryOfTheHeadersVersion) {
  auto lt = LoadCublasLt();
  ASSERT_TRUE(lt.ok()) << lt.status().message();
  // Needs no GPU: the library answers from itself.
  EXPECT_EQ((*lt)->get_version(), size_t{CUBLAS_VERSION});
  EXPECT_THAT((*lt)->status_string(CUBLAS_STATUS_NOT_INITIALIZED), ::testing::HasSubstr("not initialized"));
  auto again = LoadCublasLt();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *lt);  // opened once
}

TEST(CublasLtLibrary, SonameFollowsTheHeaders) {
  EXPECT_EQ(std::string(CublasLtSoname()), "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
}

}  // namespace
}  // namespace braid::cuda
