// FP8 all-gathers across processes: `mpirun -np P braid run --backend cpu
// --dtype fp8_e4m3` moves one byte a value (plus a 4-byte scale a message)
// over MPI, verifies bit-exactly like the thread mode, and stores the same
// bytes as the thread mode does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "mpi_runner.h"

namespace {

using braid::testing_mpi::Braid;
using braid::testing_mpi::MpiBraid;
using braid::testing_mpi::Outcome;
using braid::testing_mpi::QueryOne;
using braid::testing_mpi::TempPath;
using ::testing::HasSubstr;

std::string AgGemm(int np, const std::string& algo, const std::string& dtype) {
  return "run --backend cpu --op ag_gemm --m " + std::to_string(48 * np) + " --n " + std::to_string(16 * np) +
         " --k 96 --tp " + std::to_string(np) + " --iters 1 --warmup 0 --seed 7 --algo " + algo +
         (algo == "serial" ? "" : " --chunks 2") + " --dtype " + dtype + " --verify --json ";
}

// Bytes of every comm event (kind 1) the run stored: what each send and
// collective put on the wire, and what each receive took.
long long CommBytes(const std::string& db) {
  const std::string v = QueryOne(db, "SELECT sum(bytes) FROM events WHERE kind = 1");
  return v.empty() ? -1 : std::stoll(v);
}

class MpiFp8Wire : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(MpiFp8Wire, AgGemmVerifiesAndMovesOneByteAValue) {
  BRAID_SKIP_WITHOUT_MPI();
  const auto& [np, algo] = GetParam();
  const std::string fp8_db = TempPath("fp8_wire.db"), bf16_db = TempPath("bf16_wire.db"),
                    threads_db = TempPath("fp8_threads.db");
  for (const std::string& db : {fp8_db, bf16_db, threads_db}) std::remove(db.c_str());
  const Outcome f = MpiBraid(np, AgGemm(np, algo, "fp8_e4m3") + "--db " + fp8_db);
  ASSERT_EQ(f.code, 0) << f.err;
  const auto j = nlohmann::json::parse(f.out);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
  EXPECT_LE(j["verify"]["max_rel_error"].get<double>(), 1e-5);
  EXPECT_THAT(j["notes"].dump(), HasSubstr("all-gathers of A move one fp8_e4m3 byte a value"));
  const Outcome b = MpiBraid(np, AgGemm(np, algo, "bf16") + "--db " + bf16_db);
  ASSERT_EQ(b.code, 0) << b.err;
  const Outcome t = Braid(AgGemm(np, algo, "fp8_e4m3") + "--db " + threads_db);
  ASSERT_EQ(t.code, 0) << t.err;
  const long long fp8 = CommBytes(fp8_db), bf16 = CommBytes(bf16_db);
  ASSERT_GT(bf16, 0);
  ASSERT_EQ(bf16 % 4, 0) << "bf16 runs move fp32, 4 bytes a value";
  // One byte a value, and a 4-byte scale per message: a few bytes over a quarter.
  const long long headers = fp8 - bf16 / 4;
  EXPECT_GT(headers, 0);
  EXPECT_EQ(headers % 4, 0);
  EXPECT_LT(headers * 100, bf16 / 4) << "headers are under 1% of these messages";
  EXPECT_EQ(CommBytes(threads_db), fp8) << "processes and threads put the same bytes on the wire";
  for (const std::string& db : {fp8_db, bf16_db, threads_db}) std::remove(db.c_str());
}

std::string Name(const ::testing::TestParamInfo<MpiFp8Wire::ParamType>& p) {
  return "np" + std::to_string(std::get<0>(p.param)) + "_" + std::get<1>(p.param);
}

INSTANTIATE_TEST_SUITE_P(TwoAndFourProcesses, MpiFp8Wire,
                         ::testing::Combine(::testing::Values(2, 4),
                                            ::testing::Values("serial", "chunked", "ring", "bidir_ring")),
                         Name);

}  // namespace
