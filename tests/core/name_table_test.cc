// The name tables (braid/name_table.h): every value of every kind prints as
// it always has and parses back; an unknown name is refused with the
// message its parser always gave.
#include "braid/name_table.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/backend_kind.h"
#include "braid/data_parallel.h"
#include "braid/dp_schedule.h"
#include "braid/layer_workload.h"
#include "braid/overlap_config.h"
#include "braid/plan.h"
#include "braid/topology.h"
#include "braid/workload.h"

namespace braid {
namespace {

// Each value's name is `name`, and parsing that name gives the value back.
template <typename E, typename NameFn, typename ParseFn>
void ExpectRoundTrips(const std::vector<std::pair<E, std::string_view>>& values, NameFn name_of, ParseFn parse) {
  for (const auto& [value, name] : values) {
    EXPECT_EQ(name_of(value), name);
    auto parsed = parse(name);
    ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.status().message();
    EXPECT_EQ(*parsed, value) << name;
  }
}

template <typename T>
std::string RefusalOf(const Result<T>& r) {
  return r.ok() ? "(accepted)" : r.status().message();
}

enum class Colour { kRed, kGreen, kBlue };
constexpr NameTable<Colour, 2> kColourNames{{{Colour::kRed, "red"}, {Colour::kGreen, "green"}}};

TEST(NameTable, PrintsAndParsesThroughOneTable) {
  static_assert(IsOneToOne(kColourNames));
  static_assert(NameIn(kColourNames, Colour::kGreen) == "green");
  static_assert(ValueNamed(kColourNames, "red") == Colour::kRed);
  EXPECT_EQ(NameIn(kColourNames, Colour::kBlue), "?");  // a value the table lacks
  EXPECT_EQ(ValueNamed(kColourNames, "Red"), std::nullopt);
  EXPECT_EQ(ValueNamed(kColourNames, "red "), std::nullopt);
  EXPECT_EQ(ValueNamed(kColourNames, ""), std::nullopt);
  EXPECT_EQ(NamesIn(kColourNames), "red, green");
  EXPECT_EQ(*ParseNamed(kColourNames, "colour", "green"), Colour::kGreen);
}

TEST(NameTable, RefusalQuotesTheNameOnOneLine) {
  EXPECT_EQ(RefusalOf(ParseNamed(kColourNames, "colour", "bl\nue")), "unknown colour 'bl\\nue' (known: red, green)");
  EXPECT_EQ(ParseNamed(kColourNames, "colour", "blue").status().code(), StatusCode::kInvalidArgument);
}

TEST(NameTable, OneToOneRefusesATableThatNamesTwice) {
  constexpr NameTable<Colour, 2> same_name{{{Colour::kRed, "red"}, {Colour::kGreen, "red"}}};
  constexpr NameTable<Colour, 2> same_value{{{Colour::kRed, "red"}, {Colour::kRed, "green"}}};
  constexpr NameTable<Colour, 1> empty_name{{{Colour::kRed, ""}}};
  static_assert(!IsOneToOne(same_name));
  static_assert(!IsOneToOne(same_value));
  static_assert(!IsOneToOne(empty_name));
}

TEST(BackendKind, EveryBackendRoundTrips) {
  ExpectRoundTrips<BackendKind>({{BackendKind::kSim, "sim"}, {BackendKind::kCpu, "cpu"}, {BackendKind::kCuda, "cuda"}},
                                BackendKindName, ParseBackendKind);
  for (BackendKind k : {BackendKind::kSim, BackendKind::kCpu, BackendKind::kCuda}) {
    EXPECT_EQ(BackendKindNamed(BackendKindName(k)), k);
    EXPECT_TRUE(IsBackend(BackendKindName(k), k));
  }
}

TEST(BackendKind, OtherNamesAreNoBackend) {
  EXPECT_EQ(RefusalOf(ParseBackendKind("tpu")), "unknown backend 'tpu' (known: sim, cpu, cuda)");
  EXPECT_EQ(RefusalOf(ParseBackendKind("")), "unknown backend '' (known: sim, cpu, cuda)");
  for (std::string_view name : {"tpu", "", "Sim", "CUDA", " cpu", "kineto", "nsys"}) {
    EXPECT_EQ(BackendKindNamed(name), std::nullopt) << name;
    EXPECT_FALSE(IsBackend(name, BackendKind::kSim)) << name;
  }
  EXPECT_FALSE(IsBackend("cpu", BackendKind::kSim));
}

TEST(NameTable, EveryOpAndDTypeRoundTrips) {
  ExpectRoundTrips<Op>({{Op::kAgGemm, "ag_gemm"}, {Op::kGemmRs, "gemm_rs"}, {Op::kGemmAr, "gemm_ar"}}, OpName, ParseOp);
  ExpectRoundTrips<DType>({{DType::kBf16, "bf16"},
                           {DType::kFp16, "fp16"},
                           {DType::kFp32, "fp32"},
                           {DType::kFp8E4m3, "fp8_e4m3"},
                           {DType::kFp8E5m2, "fp8_e5m2"}},
                          DTypeName, ParseDType);
  EXPECT_EQ(RefusalOf(ParseOp("gemm")), "unknown op 'gemm' (known: ag_gemm, gemm_rs, gemm_ar)");
  EXPECT_EQ(RefusalOf(ParseDType("int8")), "unknown dtype 'int8' (known: bf16, fp16, fp32, fp8_e4m3, fp8_e5m2)");
  EXPECT_EQ(RefusalOf(ParseDType("fp8")),
            "dtype 'fp8' is ambiguous: say fp8_e4m3 (forward: more precision) or fp8_e5m2 (gradients: more range)");
}

TEST(NameTable, EveryAlgorithmAndCommEngineRoundTrips) {
  ExpectRoundTrips<Algorithm>({{Algorithm::kSerial, "serial"},
                               {Algorithm::kChunked, "chunked"},
                               {Algorithm::kRing, "ring"},
                               {Algorithm::kBidirRing, "bidir_ring"},
                               {Algorithm::kIso, "iso"},
                               {Algorithm::kFused, "fused"},
                               {Algorithm::kBulk, "bulk"},
                               {Algorithm::kExternal, "external"},
                               {Algorithm::kDirect, "direct"},
                               {Algorithm::kA2a, "a2a"},
                               {Algorithm::kA2aDirect, "a2a_direct"}},
                              AlgorithmName, ParseAlgorithm);
  ExpectRoundTrips<CommEngine>({{CommEngine::kSm, "sm"}, {CommEngine::kCopyEngine, "ce"}}, CommEngineName,
                               ParseCommEngine);
  EXPECT_EQ(RefusalOf(ParseAlgorithm("tree")),
            "unknown algorithm 'tree' (known: serial, chunked, ring, bidir_ring, direct, iso, fused, bulk, external, "
            "a2a, a2a_direct)");
  EXPECT_EQ(RefusalOf(ParseCommEngine("dma")), "unknown comm engine 'dma' (known: sm, ce)");
}

TEST(NameTable, EveryPhaseAndPassRoundTrips) {
  ExpectRoundTrips<Phase>({{Phase::kPrefill, "prefill"}, {Phase::kDecode, "decode"}, {Phase::kTrain, "train"}},
                          PhaseName, ParsePhase);
  ExpectRoundTrips<Pass>({{Pass::kFprop, "fprop"}, {Pass::kDgrad, "dgrad"}, {Pass::kWgrad, "wgrad"}}, PassName,
                         ParsePass);
  EXPECT_EQ(RefusalOf(ParsePhase("infer")), "unknown phase 'infer' (known: prefill, decode, train)");
  EXPECT_EQ(RefusalOf(ParsePass("bprop")), "unknown pass 'bprop' (known: fprop, dgrad, wgrad)");
}

TEST(NameTable, EveryLinkKindRoundTrips) {
  ExpectRoundTrips<LinkKind>({{LinkKind::kNvSwitch, "nvswitch"},
                              {LinkKind::kNvLink, "nvlink"},
                              {LinkKind::kPcie, "pcie"},
                              {LinkKind::kInfiniBand, "infiniband"},
                              {LinkKind::kRoce, "roce"},
                              {LinkKind::kEthernet, "ethernet"}},
                             LinkKindName, ParseLinkKind);
  EXPECT_EQ(RefusalOf(ParseLinkKind("usb")),
            "unknown link kind 'usb' (known: nvswitch, nvlink, pcie, infiniband, roce, ethernet)");
}

TEST(NameTable, EveryDpScheduleAndZeroStageRoundTrips) {
  ExpectRoundTrips<DpSchedule>(
      {{DpSchedule::kSerial, "serial"}, {DpSchedule::kBucketed, "bucketed"}, {DpSchedule::kDecomposed, "decomposed"}},
      DpScheduleName, ParseDpSchedule);
  ExpectRoundTrips<ZeroStage>(
      {{ZeroStage::kNone, "none"}, {ZeroStage::k1, "1"}, {ZeroStage::k2, "2"}, {ZeroStage::k3, "3"}}, ZeroStageName,
      ParseZeroStage);
  EXPECT_EQ(*ParseZeroStage("0"), ZeroStage::kNone);  // the other name of no ZeRO, printed "none"
  EXPECT_EQ(RefusalOf(ParseDpSchedule("eager")), "unknown DP schedule 'eager' (known: serial, bucketed, decomposed)");
  EXPECT_EQ(RefusalOf(ParseZeroStage("4")),
            "`zero` must be 1, 2 or 3 (or 0 / none for plain data parallelism), got '4'");
}

TEST(NameTable, EveryCollectiveRoundTrips) {
  ExpectRoundTrips<CollectiveKind>({{CollectiveKind::kAllGather, "all_gather"},
                                    {CollectiveKind::kReduceScatter, "reduce_scatter"},
                                    {CollectiveKind::kAllReduce, "all_reduce"}},
                                   CollectiveName, ParseCollectiveKind);
  EXPECT_EQ(RefusalOf(ParseCollectiveKind("broadcast")),
            "unknown collective 'broadcast' (known: all_reduce, all_gather, reduce_scatter)");
}

}  // namespace
}  // namespace braid
