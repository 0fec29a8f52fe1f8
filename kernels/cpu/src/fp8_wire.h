// The FP8 wire format: how a transfer whose comm dtype is FP8
// (Workload::CommDType) travels between ranks, one byte per value.
//
//   bytes [0, 4)      the scale, an fp32 in host byte order (every rank of a
//                     run is the same binary on the same architecture)
//   bytes [4, 4 + n)  QuantizeFp8(format, value[i], scale), one code a value
//
// The receiver decodes value[i] = DequantizeFp8(format, code[i], scale) into
// its fp32 destination. The format is not on the wire: both ends take it
// from the plan. Two scales:
//   - a tensor scale (WireFormat::scale > 0): the values are already FP8
//     values under it (an all-gather of an A that RoundInputsToFp8 cast with
//     that scale), so the round trip is bit-exact. The encoder finds each
//     value's code by inverting DequantizeFp8 (a 256-entry table; for such
//     values the code QuantizeFp8 gives, several times faster) and refuses a
//     value that is not one of them (a plan bug, not a rounding choice);
//   - a message scale (scale == 0): Fp8ScaleForAmax of the message's own
//     amax, as for FP8 partial sums; each value then rounds to FP8.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "braid/fp8.h"
#include "braid/plan.h"
#include "braid/status.h"
#include "braid/transport.h"

namespace braid {

inline constexpr int64_t kFp8WireHeaderBytes = 4;

// What one op's transfers carry. Default: fp32 floats (Transport::Send).
struct WireFormat {
  bool fp8 = false;
  Fp8Format format = Fp8Format::kE4m3;
  float scale = 0;  // > 0: tensor scale, values exact under it; 0: per-message amax scale

  bool exact() const { return !fp8 || scale > 0; }
};

// The bytes an FP8 message of `count` values occupies on the wire.
inline int64_t Fp8WireBytes(int64_t count) { return kFp8WireHeaderBytes + count; }

// Encodes `values` into `out` (resized to Fp8WireBytes). With a tensor scale,
// a value that does not decode back to itself bit for bit is an error.
Status EncodeFp8Wire(const WireFormat& wire, std::span<const float> values, std::vector<uint8_t>& out);
// Decodes a whole message into `out`: its size must be
// Fp8WireBytes(out.size()) and its scale valid (CheckFp8Scale).
Status DecodeFp8Wire(Fp8Format format, std::span<const uint8_t> message, std::span<float> out);

// Sends / receives `count` floats as `wire` says: fp32 through Send / Recv,
// FP8 encoded through SendBytes / RecvBytes (eager: `bytes` is the encode
// buffer, reusable once the call returns). Return the bytes on the wire.
Result<int64_t> WireSend(Transport& t, const WireFormat& wire, int src, int dst, uint64_t tag, const float* data,
                         int64_t count, std::vector<uint8_t>& bytes);
Result<int64_t> WireRecv(Transport& t, const WireFormat& wire, int dst, int src, uint64_t tag, float* data,
                         int64_t count, std::vector<uint8_t>& bytes);

// One WireFormat per op of `plan` (Plan::op_workload indexing): FP8 where the
// op's comm dtype (Plan::op_comm_dtype) is FP8. An op that moves rows of its A
// (CommMovesA: an all-gather, a Ulysses gemm_rs), with `a_scales[op]` > 0
// (the scale its A was cast with, in `cast_format`) uses that tensor scale;
// every other FP8 transfer (partial sums) a message scale.
std::vector<WireFormat> OpWireFormats(const Plan& plan, const std::vector<float>& a_scales, Fp8Format cast_format);

// The verify tolerance of an op whose transfers use `wire`, on P ranks.
// Exact wires keep kVerifyTolerance. FP8 partial sums do not: every hop of a
// ring reduction rounds the running sum to FP8, a relative error of at most
// u = 2^-(mantissa bits + 1) of each value (2^-4 for E4M3, 2^-3 for E5M2;
// values that fall to subnormals lose at most half the smallest subnormal,
// ≤ 2^-10 / 448 of the message's amax). A value is rounded at most P times on
// its way (P − 1 reduce-scatter hops, and one more when an all-reduce gathers
// the sum), each time by at most u of the partial sum it is then; taking the
// partial sums to be no larger than the final sum (true in expectation for
// independent zero-mean contributions, as random inputs are; data that
// cancels heavily can exceed it) the normwise error max|C − ref| / max|ref|
// is at most P·u: 0.25 for E4M3 on 4 ranks. A bound, not a typical error.
double WireVerifyTolerance(const WireFormat& wire, int ranks);

}  // namespace braid
