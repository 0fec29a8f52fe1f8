// The FP8 wire format (fp8_wire.h): bit-exact round trips under a tensor
// scale, bounded rounding under a message scale, byte messages on the
// in-process transport, one byte a value charged to the emulated link, and
// FP8 partial sums that verify within the derived tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "braid/cpu_backend.h"
#include "braid/cpu_transport.h"
#include "braid/cpu_verify.h"
#include "braid/fp8.h"
#include "cpu_collectives.h"
#include "cpu_test_util.h"
#include "fp8_inputs.h"
#include "fp8_wire.h"
#include "rank_memory.h"
#include "run_inputs.h"
#include "run_plan.h"

namespace braid {
namespace {

using testing::MustBuild;
using testing::VerifyOnce;

constexpr Fp8Format kFormats[] = {Fp8Format::kE4m3, Fp8Format::kE5m2};

bool IsFiniteCode(Fp8Format f, int code) { return std::isfinite(Fp8ToFloat(f, uint8_t(code))); }

bool SameBits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

// Every finite value of the format under `scale`: ±0, subnormals, normals, ±max.
std::vector<float> EveryValue(Fp8Format f, float scale) {
  std::vector<float> v;
  for (int code = 0; code < 256; ++code) {
    if (IsFiniteCode(f, code)) v.push_back(DequantizeFp8(f, uint8_t(code), scale));
  }
  return v;
}

TEST(CpuFp8Wire, TensorScaleRoundTripIsBitExactForEveryValue) {
  for (Fp8Format f : kFormats) {
    // 1, a power of two, and the non-power-of-two scales amax scaling gives.
    for (float scale : {1.0f, 0.25f, Fp8ScaleForAmax(f, 3.7f), Fp8ScaleForAmax(f, 0.013f)}) {
      SCOPED_TRACE(std::string(Fp8FormatName(f)) + " scale " + std::to_string(scale));
      const std::vector<float> values = EveryValue(f, scale);
      ASSERT_EQ(values.size(), f == Fp8Format::kE4m3 ? 254u : 248u);  // NaNs (and E5M2's infs) left out
      std::vector<uint8_t> wire;
      ASSERT_TRUE(EncodeFp8Wire({true, f, scale}, values, wire).ok());
      ASSERT_EQ(int64_t(wire.size()), kFp8WireHeaderBytes + int64_t(values.size()));
      float header = 0;
      std::memcpy(&header, wire.data(), sizeof header);
      EXPECT_TRUE(SameBits(header, scale));
      std::vector<float> back(values.size(), 12345.0f);
      ASSERT_TRUE(DecodeFp8Wire(f, wire, back).ok());
      int negatives = 0, zeros = 0, subnormals = 0;
      for (size_t i = 0; i < values.size(); ++i) {
        ASSERT_TRUE(SameBits(back[i], values[i])) << i << ": " << values[i] << " came back as " << back[i];
        // The code on the wire is the one QuantizeFp8 gives.
        ASSERT_EQ(wire[size_t(kFp8WireHeaderBytes) + i], QuantizeFp8(f, values[i], scale)) << i;
        negatives += std::signbit(values[i]);
        zeros += values[i] == 0;
        // Exponent field 0, mantissa not: a subnormal code.
        const int magnitude = wire[size_t(kFp8WireHeaderBytes) + i] & 0x7F;
        subnormals += magnitude != 0 && (magnitude >> (f == Fp8Format::kE4m3 ? 3 : 2)) == 0;
      }
      EXPECT_EQ(negatives, int(values.size()) / 2);
      EXPECT_EQ(zeros, 2);  // +0 and −0, each with its sign kept (bits compared above)
      EXPECT_EQ(subnormals, f == Fp8Format::kE4m3 ? 14 : 6);
      EXPECT_FLOAT_EQ(*std::max_element(back.begin(), back.end()) * scale, Fp8Max(f));
    }
  }
}

TEST(CpuFp8Wire, TensorScaleRefusesAValueOffTheGrid) {
  std::vector<uint8_t> wire;
  const std::vector<float> values{1.0f, 0.3f};  // 0.3 is no E4M3 value under scale 1
  const Status s = EncodeFp8Wire({true, Fp8Format::kE4m3, 1.0f}, values, wire);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is not an fp8_e4m3 value"), std::string::npos) << s.message();
}

TEST(CpuFp8Wire, MessageScalePutsTheAmaxAtTheFormatsMaxAndRoundsToNearest) {
  for (Fp8Format f : kFormats) {
    const HostMatrix m = RandomMatrix(64, 33, 11, 3);
    std::vector<float> values = m.data;
    values[7] = -2.5f;  // the amax, negative
    std::vector<uint8_t> wire;
    ASSERT_TRUE(EncodeFp8Wire({true, f, 0}, values, wire).ok());
    float scale = 0;
    std::memcpy(&scale, wire.data(), sizeof scale);
    EXPECT_EQ(scale, Fp8ScaleForAmax(f, 2.5f));
    std::vector<float> back(values.size());
    ASSERT_TRUE(DecodeFp8Wire(f, wire, back).ok());
    EXPECT_FLOAT_EQ(back[7], -2.5f);
    const double u = f == Fp8Format::kE4m3 ? 1.0 / 16 : 1.0 / 8;
    // Below the smallest normal the step is absolute: half the smallest subnormal.
    const double floor = (f == Fp8Format::kE4m3 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -17)) / scale;
    int moved = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const double err = std::fabs(double(back[i]) - double(values[i]));
      ASSERT_LE(err, std::fmax(u * std::fabs(values[i]), floor) * 1.0001) << i;
      // Decoding the same code again gives the same value: the receiver's rounding is the sender's.
      EXPECT_EQ(back[i], DequantizeFp8(f, QuantizeFp8(f, values[i], scale), scale));
      moved += back[i] != values[i];
    }
    EXPECT_GT(moved, int(values.size()) / 2) << "random fp32 values are rarely FP8 values";
  }
}

TEST(CpuFp8Wire, DecodeRefusesAWrongSizeAndABadScale) {
  std::vector<uint8_t> wire;
  const std::vector<float> values{1.0f, -2.0f, 0.5f};
  ASSERT_TRUE(EncodeFp8Wire({true, Fp8Format::kE4m3, 0}, values, wire).ok());
  std::vector<float> two(2), three(3);
  const Status short_out = DecodeFp8Wire(Fp8Format::kE4m3, wire, two);
  ASSERT_FALSE(short_out.ok());
  EXPECT_NE(short_out.message().find("expected 6 bytes, the message has 7"), std::string::npos) << short_out.message();
  const float nan = std::nanf("");
  std::memcpy(wire.data(), &nan, sizeof nan);
  EXPECT_FALSE(DecodeFp8Wire(Fp8Format::kE4m3, wire, three).ok());
}

TEST(CpuFp8Wire, TransportMovesByteMessagesAndRefusesTheOtherKind) {
  CpuTransport t(2);
  const std::vector<uint8_t> sent{1, 2, 3, 250, 0};
  ASSERT_TRUE(t.SendBytes(0, 1, 9, sent.data(), int64_t(sent.size())).ok());
  std::vector<uint8_t> got(5);
  ASSERT_TRUE(t.RecvBytes(1, 0, 9, got.data(), 5).ok());
  EXPECT_EQ(got, sent);
  // A byte message does not satisfy a float receive of the same size, nor the reverse.
  ASSERT_TRUE(t.SendBytes(0, 1, 10, sent.data(), 4).ok());
  float f = 0;
  const Status s = t.Recv(1, 0, 10, &f, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected 1 floats, the message has 4 bytes"), std::string::npos) << s.message();
  ASSERT_TRUE(t.Send(0, 1, 11, &f, 1).ok());
  EXPECT_FALSE(t.RecvBytes(1, 0, 11, got.data(), 4).ok());
}

TEST(CpuFp8Wire, AbortWakesAByteReceiver) {
  CpuTransport t(2);
  testing::WithWatchdog(std::chrono::seconds(30), [&] {
    std::thread aborter([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      t.Abort();
    });
    uint8_t b = 0;
    const Status s = t.RecvBytes(1, 0, 3, &b, 1);
    aborter.join();
    EXPECT_FALSE(s.ok());
  });
}

// Values each iteration puts on the wire: every send step's region, and
// every all-gather collective's P − 1 messages of its rows. `messages`
// counts the messages.
int64_t WireValues(const Plan& plan, int64_t& messages) {
  int64_t values = 0;
  messages = 0;
  for (const RankPlan& rp : plan.ranks) {
    for (const Step& s : rp.steps) {
      const int64_t elems = s.a.buffer >= 0 ? s.a.total_rows() * rp.buffers[size_t(s.a.buffer)].cols : 0;
      if (s.kind == StepKind::kSend) {
        values += elems;
        ++messages;
      } else if (s.kind == StepKind::kCollective) {
        EXPECT_EQ(s.collective, CollectiveKind::kAllGather) << "an ag_gemm plan only all-gathers";
        values += (plan.tp() - 1) * elems;
        messages += plan.tp() - 1;
      }
    }
  }
  return values;
}

// A paced CpuTransport that reports what its link was charged when the run
// that owns it destroys it.
class ChargeReportingTransport : public CpuTransport {
 public:
  ChargeReportingTransport(int ranks, double gbps, int64_t* charged) : CpuTransport(ranks, gbps), charged_(charged) {}
  ~ChargeReportingTransport() override { *charged_ = link_bytes(); }

 private:
  int64_t* charged_;
};

// A run on a paced transport (fast: the pacing is not what is measured)
// that reports what its link was charged.
Result<RunOutput> PacedRun(const Plan& plan, int64_t& link_bytes) {
  CpuBackendOptions o;
  o.link_gbps = 1e4;
  link_bytes = -1;
  CpuBackend cpu(o, [&link_bytes](int ranks, const CpuBackendOptions& opt) {
    return std::unique_ptr<Transport>(std::make_unique<ChargeReportingTransport>(ranks, opt.link_gbps, &link_bytes));
  });
  return cpu.Run(plan, VerifyOnce());
}

TEST(CpuFp8Wire, AgGemmChargesTheLinkOneByteAValueAndStillVerifies) {
  int checked = 0;
  for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    for (int p : {2, 4}) {
      const int chunks = algo == Algorithm::kSerial ? 1 : 2;
      const Plan bf16 = MustBuild(Op::kAgGemm, int64_t(p) * 16, 8 * p, 24, p, algo, chunks, 2, {}, DType::kBf16);
      const Plan fp8 = MustBuild(Op::kAgGemm, int64_t(p) * 16, 8 * p, 24, p, algo, chunks, 2, {}, DType::kFp8E4m3);
      SCOPED_TRACE(fp8.workload.Describe() + " " + fp8.config.Describe());
      int64_t messages = 0;
      const int64_t values = WireValues(fp8, messages);
      ASSERT_GT(values, 0);
      int64_t bf16_bytes = 0, fp8_bytes = 0;
      const Result<RunOutput> b = PacedRun(bf16, bf16_bytes);
      const Result<RunOutput> f = PacedRun(fp8, fp8_bytes);
      ASSERT_TRUE(b.ok()) << b.status().message();
      ASSERT_TRUE(f.ok()) << f.status().message();
      // bf16 runs hold fp32 and are charged 4 bytes a value, as before.
      EXPECT_EQ(bf16_bytes, 4 * values);
      // FP8: one byte a value and a 4-byte scale per message.
      EXPECT_EQ(fp8_bytes, values + kFp8WireHeaderBytes * messages);
      EXPECT_TRUE(f->verify.ok) << f->verify.max_rel_error;
      EXPECT_LE(f->verify.max_rel_error, 1e-5);
      bool noted = false;
      for (const std::string& n : f->notes)
        noted = noted || n.find("move one fp8_e4m3 byte a value") != std::string::npos;
      EXPECT_TRUE(noted);
      // Every sending step's event counts the bytes it put on the wire.
      int64_t event_bytes = 0;
      for (const Event& e : f->events) {
        for (const Step& st : fp8.ranks[size_t(e.rank)].steps) {
          if (st.name != e.name) continue;
          if (st.kind == StepKind::kSend || st.kind == StepKind::kCollective) event_bytes += e.bytes;
          break;
        }
      }
      EXPECT_EQ(event_bytes, fp8_bytes);
      if (!::testing::Test::HasFailure()) ++checked;
    }
  }
  EXPECT_EQ(checked, 8);
}

TEST(CpuFp8Wire, RunNoteSaysWhatMoves) {
  const Plan ag = MustBuild(Op::kAgGemm, 32, 16, 24, 2, Algorithm::kRing, 1, 1, {}, DType::kFp8E5m2);
  cpu::RunInputs in = cpu::MakeRunInputs(ag, 7, false);
  const std::string ag_note = cpu::CpuDTypeNote(ag, cpu::RunWireFormats(ag, in));
  EXPECT_NE(ag_note.find("all-gathers of A move one fp8_e5m2 byte a value under A's tensor scale (bit-exact)"),
            std::string::npos)
      << ag_note;
  const Plan rs = MustBuild(Op::kGemmRs, 32, 16, 24, 2, Algorithm::kRing, 1, 1, {}, DType::kFp8E4m3);
  in = cpu::MakeRunInputs(rs, 7, false);
  const std::string rs_note = cpu::CpuDTypeNote(rs, cpu::RunWireFormats(rs, in));
  EXPECT_NE(rs_note.find("partial sums (bf16 requested) move fp32, 4 bytes a value"), std::string::npos) << rs_note;
  // What a gemm_rs with FP8 comm (a per-message scale) would say.
  const std::string fp8_rs = cpu::CpuDTypeNote(rs, {WireFormat{true, Fp8Format::kE4m3, 0}});
  EXPECT_NE(fp8_rs.find("partial sums move one fp8_e4m3 byte a value under the message's amax scale"),
            std::string::npos)
      << fp8_rs;
}

// Ring reductions whose messages are FP8 under each message's amax: lossy,
// but within WireVerifyTolerance of the exact sum.
TEST(CpuFp8Wire, RingReductionsOfFp8PartialsStayWithinTheDerivedTolerance) {
  for (Fp8Format f : kFormats) {
    for (int p : {2, 3, 4}) {
      const WireFormat wire{true, f, 0};
      const int64_t n = 8, cols = 16;
      std::vector<HostMatrix> a;
      for (int q = 0; q < p; ++q) a.push_back(RandomMatrix(p * n, cols, 5, uint64_t(q)));
      HostMatrix sum(p * n, cols);
      for (int q = 0; q < p; ++q) {
        for (size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += a[size_t(q)].data[i];
      }
      CpuTransport t(p);
      std::vector<HostMatrix> rs(size_t(p), HostMatrix(n, cols)), ar(size_t(p), HostMatrix(p * n, cols));
      testing::WithWatchdog(std::chrono::seconds(60), [&] {
        testing::OnRanks(p, [&](int r) {
          std::vector<float> scratch;
          std::vector<uint8_t> bytes;
          HostMatrix& mine = a[size_t(r)];
          const RingComm c1{&t, r, p, 1, &scratch, wire, &bytes};
          auto sent = RingReduceScatter(c1, RowSpan::Dense(mine.data.data(), p * n, cols),
                                        RowSpan::Dense(rs[size_t(r)].data.data(), n, cols));
          ASSERT_TRUE(sent.ok()) << sent.status().message();
          EXPECT_EQ(*sent, (p - 1) * (n * cols + kFp8WireHeaderBytes));
          const RingComm c2{&t, r, p, 2, &scratch, wire, nullptr};
          auto ar_sent = RingAllReduce(c2, RowSpan::Dense(mine.data.data(), p * n, cols),
                                       RowSpan::Dense(ar[size_t(r)].data.data(), p * n, cols));
          ASSERT_TRUE(ar_sent.ok()) << ar_sent.status().message();
        });
      });
      std::vector<RankOutput> rs_out, ar_out;
      for (int r = 0; r < p; ++r) {
        rs_out.push_back({{r * n, n, 0, cols}, rs[size_t(r)].data.data(), cols});
        ar_out.push_back({{0, p * n, 0, cols}, ar[size_t(r)].data.data(), cols});
      }
      for (const auto* outs : {&rs_out, &ar_out}) {
        const VerifyResult v = VerifyOutputs(sum, *outs, WireVerifyTolerance(wire, p));
        EXPECT_TRUE(v.ok) << Fp8FormatName(f) << " P=" << p << ": " << v.max_rel_error;
        EXPECT_GT(v.max_rel_error, kVerifyTolerance) << "the partial sums travelled as FP8";
      }
    }
  }
}

// A gemm_rs plan run with FP8 partial sums (what a Workload with an FP8
// comm dtype will get from OpWireFormats): every algorithm's sends and
// collectives go through the wire and verify within the derived tolerance.
TEST(CpuFp8Wire, GemmRsWithFp8PartialSumsVerifiesWithinTheDerivedTolerance) {
  for (Algorithm algo : {Algorithm::kSerial, Algorithm::kChunked, Algorithm::kRing, Algorithm::kBidirRing}) {
    for (int p : {2, 4}) {
      const int chunks = algo == Algorithm::kSerial ? 1 : 2;
      const Plan plan = MustBuild(Op::kGemmRs, int64_t(p) * 16, 8 * p, 8 * p, p, algo, chunks, 2);
      SCOPED_TRACE(plan.workload.Describe() + " " + plan.config.Describe());
      const cpu::RunInputs in = cpu::MakeRunInputs(plan, 7, false);
      std::vector<cpu::RankMemory> memory;
      for (const RankPlan& rp : plan.ranks) memory.emplace_back(rp, in.a, in.b);
      CpuTransport t(p);
      RunOutput out;
      const std::vector<WireFormat> wires{WireFormat{true, Fp8Format::kE4m3, 0}};
      Status s;
      testing::WithWatchdog(std::chrono::seconds(60),
                            [&] { s = cpu::ExecutePlan(plan, VerifyOnce(), memory, t, out, {}, wires); });
      ASSERT_TRUE(s.ok()) << s.message();
      const HostMatrix ref = ReferenceGemm(in.a[0], in.b[0]);
      std::vector<RankOutput> outputs;
      for (int r = 0; r < p; ++r) {
        const RankPlan& rp = plan.ranks[size_t(r)];
        for (const OpOutput& o : rp.Outputs()) {
          outputs.push_back({o.window, memory[size_t(r)].data(o.buffer), rp.buffers[size_t(o.buffer)].cols});
        }
      }
      const VerifyResult v = VerifyOutputs(ref, outputs, WireVerifyTolerance(wires[0], p));
      EXPECT_TRUE(v.ok) << v.max_rel_error;
      EXPECT_GT(v.max_rel_error, kVerifyTolerance) << "the partial sums travelled as FP8";
    }
  }
}

TEST(CpuFp8Wire, ToleranceIsTheFp32OneForExactWires) {
  EXPECT_EQ(WireVerifyTolerance({}, 4), kVerifyTolerance);
  EXPECT_EQ(WireVerifyTolerance({true, Fp8Format::kE4m3, 2.0f}, 4), kVerifyTolerance);
  EXPECT_DOUBLE_EQ(WireVerifyTolerance({true, Fp8Format::kE4m3, 0}, 4), 0.25);
  EXPECT_DOUBLE_EQ(WireVerifyTolerance({true, Fp8Format::kE5m2, 0}, 2), 0.25);
}

}  // namespace
}  // namespace braid
