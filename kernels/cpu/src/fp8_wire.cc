#include "fp8_wire.h"

#include <algorithm>
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

}  // namespace

Status EncodeFp8Wire(const WireFormat& wire, std::span<const float> values, std::vector<uint8_t>& out) {
  const float scale = wire.scale > 0 ? wire.scale : Fp8ScaleForAmax(wire.format, Amax(values));
  BRAID_RETURN_IF_ERROR(CheckFp8Scale(scale));
  out.resize(size_t(Fp8WireBytes(int64_t(values.size()))));
  std::memcpy(out.data(), &scale, sizeof scale);
  const std::span<uint8_t> codes(out.data() + kFp8WireHeaderBytes, values.size());
  QuantizeFp8(wire.format, values, scale, codes);
  if (wire.scale > 0) {
    for (size_t i = 0; i < values.size(); ++i) {
      const float back = DequantizeFp8(wire.format, codes[i], scale);
      if (std::memcmp(&back, &values[i], sizeof back) != 0) {
        return Status::Internal("fp8 wire: value " + std::to_string(values[i]) + " at " + std::to_string(i) +
                                " is not an " + std::string(Fp8FormatName(wire.format)) + " value under scale " +
                                std::to_string(scale));
      }
    }
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
    const DType comm = w.CommDType();
    if (!IsFp8(comm) || (plan.is_layer() && !plan.ops[i].gemm)) continue;
    WireFormat& wire = wires[i];
    wire.fp8 = true;
    wire.format = Fp8FormatOf(comm);
    if (w.op == Op::kAgGemm && i < a_scales.size() && a_scales[i] > 0 && cast_format == wire.format) {
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
