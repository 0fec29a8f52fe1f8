#include "field_flags.h"

#include <array>
#include <utility>

namespace braid::cli {

namespace {

// Field (as the library structs spell it) -> the flag that sets it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 43> kFieldFlags{{
    // OverlapConfig
    {"algorithm", "--algo"},
    {"chunks", "--chunks"},
    {"splits", "--splits"},
    {"comm_lanes", "--streams"},
    {"comm_sms", "--comm-sms"},
    {"comm_engine", "--comm-engine"},
    {"comm_priority", "--comm-priority"},
    {"comm_dtype", "--comm-dtype"},
    // Workload and LayerWorkload
    {"tp", "--tp"},
    {"dtype", "--dtype"},
    {"model", "--model"},
    {"seq", "--seq"},
    {"batch", "--batch"},
    {"sequence_parallel", "--sequence-parallel"},
    {"phase", "--phase"},
    // RunOptions and SearchOptions; TuneRequest
    {"warmup", "--warmup"},
    {"verify", "--verify"},
    {"iters", "--iters"},
    {"budget", "--budget"},
    {"resume", "--resume"},
    // TuneSetup
    {"time_budget_s", "--time-budget"},
    {"session", "--session"},
    {"out", "--out"},
    {"runtime", "--runtime"},
    {"baseline", "--baseline"},
    // the store (braid/store.h)
    {"db", "--db"},
    {"fp8_scale_a", "--fp8-scale-a"},
    {"fp8_scale_b", "--fp8-scale-b"},
    // the cuda and cpu backends' options
    {"timeout_s", "--timeout"},
    {"loopback", "--loopback"},
    {"link_gbps", "--link-gbps"},
    {"link_latency_us", "--link-latency-us"},
    // the sim calibration (braid/sim_calibration.h); CalibrationRequest
    {"held_sms", "--held-sms"},
    {"holder", "--holder"},
    {"gpu_out", "--gpu-out"},
    {"csv_dir", "--csv-dir"},
    // a training step on a TP × DP grid (braid/train_step.h DpSetup)
    {"dp", "--dp"},
    {"zero", "--zero"},
    {"bucket_params", "--bucket-size"},
    {"decomposed_layers", "--decomposed-layers"},
    {"prefetch", "--prefetch"},
    {"layers", "--layers"},
    {"dp.comm_sms", "--dp-comm-sms"},
}};

}  // namespace

std::string_view FlagOfField(std::string_view field) {
  for (const auto& [name, flag] : kFieldFlags) {
    if (name == field) return flag;
  }
  return {};
}

std::string FlagWorded(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t pos = 0;
  while (pos < message.size()) {
    const size_t open = message.find('`', pos);
    if (open == std::string_view::npos) break;
    const size_t close = message.find('`', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view flag = FlagOfField(message.substr(open + 1, close - open - 1));
    if (flag.empty()) {
      // Not a field we know: keep the backtick, look again after it (it may
      // be a lone one, and the next one opens a field).
      out.append(message.substr(pos, open + 1 - pos));
      pos = open + 1;
      continue;
    }
    out.append(message.substr(pos, open - pos));
    out.append(flag);
    pos = close + 1;
  }
  out.append(message.substr(pos));
  return out;
}

}  // namespace braid::cli
