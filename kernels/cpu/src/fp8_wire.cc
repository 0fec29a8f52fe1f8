#include "fp8_wire.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "braid/cpu_verify.h"

namespace braid {

namespace {

float Amax(std::span<const float> values) {
  float amax = 0;
  for (float v : values) amax = std::fmax(amax, std::fabs(v));
  return amax;
}

// The inverse of DequantizeFp8 under one scale: the bits of each of the 256
// decoded values → its code, in an open-addressing table. For a value that
// decodes bit-exactly (a tensor-scale message) the code found is the one
// QuantizeFp8 gives (the only other code with those bits would decode to the
// same value: ±0 differ in their sign bit, and NaNs are not data), at a few
// ns a value instead of QuantizeFp8's ~16 on this machine's CPUs.
class Fp8Inverse {
 public:
  Fp8Inverse(Fp8Format format, float scale) {
    slots_.fill(kEmpty);
    for (int code = 0; code < 256; ++code) {
      const uint32_t bits = Bits(DequantizeFp8(format, uint8_t(code), scale));
      for (uint32_t i = Hash(bits);; i = (i + 1) % kSlots) {
        if (slots_[i] == kEmpty) {
          slots_[i] = (uint64_t(bits) << 8) | uint64_t(code);
          break;
        }
        if (uint32_t(slots_[i] >> 8) == bits) break;  // a duplicate (a NaN code): the first stays
      }
    }
  }
  // The code of `v`, or −1 when `v` is no decoded value.
  int Code(float v) const {
    const uint32_t bits = Bits(v);
    for (uint32_t i = Hash(bits);; i = (i + 1) % kSlots) {
      const uint64_t s = slots_[i];
      if (s == kEmpty) return -1;
      if (uint32_t(s >> 8) == bits) return int(s & 0xFF);
    }
  }

 private:
  static constexpr uint32_t kSlots = 1024;  // 256 keys: at most a quarter full
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static uint32_t Bits(float v) {
    uint32_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  static uint32_t Hash(uint32_t bits) { return (bits * 2654435761u) >> 22; }  // 10 bits
  std::array<uint64_t, kSlots> slots_;
};

}  // namespace

Status EncodeFp8Wire(const WireFormat& wire, std::span<const float> values, std::vector<uint8_t>& out) {
  const float scale = wire.scale > 0 ? wire.scale : Fp8ScaleForAmax(wire.format, Amax(values));
  BRAID_RETURN_IF_ERROR(CheckFp8Scale(scale));
  out.resize(size_t(Fp8WireBytes(int64_t(values.size()))));
  std::memcpy(out.data(), &scale, sizeof scale);
  const std::span<uint8_t> codes(out.data() + kFp8WireHeaderBytes, values.size());
  if (wire.scale <= 0) {
    QuantizeFp8(wire.format, values, scale, codes);
    return Status::Ok();
  }
  const Fp8Inverse inverse(wire.format, scale);
  for (size_t i = 0; i < values.size(); ++i) {
    const int code = inverse.Code(values[i]);
    if (code < 0) {
      return Status::Internal("fp8 wire: value " + std::to_string(values[i]) + " at " + std::to_string(i) +
                              " is not an " + std::string(Fp8FormatName(wire.format)) + " value under scale " +
                              std::to_string(scale));
    }
    codes[i] = uint8_t(code);
  }
  return Status::Ok();
}

Status DecodeFp8Wire(Fp8Format format, std::span<const uint8_t> message, std::span<float> out) {
  if (int64_t(message.size()) != Fp8WireBytes(int64_t(out.size()))) {
    return Status::Internal("fp8 wire: expected " + std::to_string(Fp8WireBytes(int64_t(out.size()))) +
                            " bytes, the message has " + std::to_string(message.size()));
  }
  float scale = 0;
  std::memcpy(&scale, message.data(), sizeof scale);
  BRAID_RETURN_IF_ERROR(CheckFp8Scale(scale));
  DequantizeFp8(format, message.subspan(size_t(kFp8WireHeaderBytes)), scale, out);
  return Status::Ok();
}

Result<int64_t> WireSend(Transport& t, const WireFormat& wire, int src, int dst, uint64_t tag, const float* data,
                         int64_t count, std::vector<uint8_t>& bytes) {
  if (!wire.fp8) {
    BRAID_RETURN_IF_ERROR(t.Send(src, dst, tag, data, count));
    return count * int64_t(sizeof(float));
  }
  BRAID_RETURN_IF_ERROR(EncodeFp8Wire(wire, std::span<const float>(data, size_t(count)), bytes));
  BRAID_RETURN_IF_ERROR(t.SendBytes(src, dst, tag, bytes.data(), int64_t(bytes.size())));
  return int64_t(bytes.size());
}

Result<int64_t> WireRecv(Transport& t, const WireFormat& wire, int dst, int src, uint64_t tag, float* data,
                         int64_t count, std::vector<uint8_t>& bytes) {
  if (!wire.fp8) {
    BRAID_RETURN_IF_ERROR(t.Recv(dst, src, tag, data, count));
    return count * int64_t(sizeof(float));
  }
  bytes.resize(size_t(Fp8WireBytes(count)));
  BRAID_RETURN_IF_ERROR(t.RecvBytes(dst, src, tag, bytes.data(), int64_t(bytes.size())));
  BRAID_RETURN_IF_ERROR(DecodeFp8Wire(wire.format, bytes, std::span<float>(data, size_t(count))));
  return int64_t(bytes.size());
}

std::vector<WireFormat> OpWireFormats(const Plan& plan, const std::vector<float>& a_scales, Fp8Format cast_format) {
  const size_t ops = plan.is_layer() ? plan.ops.size() : 1;
  std::vector<WireFormat> wires(ops);
  for (size_t i = 0; i < ops; ++i) {
    const Workload& w = plan.op_workload(int(i));
    const DType comm = plan.op_comm_dtype(int(i));
    if (!IsFp8(comm) || (plan.is_layer() && !plan.ops[i].gemm)) continue;
    WireFormat& wire = wires[i];
    wire.fp8 = true;
    wire.format = Fp8FormatOf(comm);
    // Rows of A (an all-gather's, a Ulysses gemm_rs's) are FP8 values under
    // A's tensor scale already; anything else (partial sums) is not.
    const bool moves_a = CommMovesA(w.op, plan.op_config(int(i)).algorithm);
    if (moves_a && i < a_scales.size() && a_scales[i] > 0 && cast_format == wire.format) {
      wire.scale = a_scales[i];
    }
  }
  return wires;
}

double WireVerifyTolerance(const WireFormat& wire, int ranks) {
  if (wire.exact()) return kVerifyTolerance;
  const double u = wire.format == Fp8Format::kE4m3 ? 0.0625 : 0.125;  // 2^-(mantissa bits + 1)
  return double(std::max(ranks, 1)) * u;
}

}  // namespace braid
