#include "braid/sim_measured.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "braid/safe_read.h"
#include "measured_csv.h"

namespace braid::sim {

namespace {

namespace fs = std::filesystem;

// A measurement this far past the GPU file's published peak (FLOP/s, or
// bytes/s for copies) cannot be one: a wrong unit or a corrupt row. Generous
// so that a newer board of the file's kind still passes.
constexpr double kImpossibleFactor = 3.0;
// Two rows of one shape whose times differ by more than this factor are
// contradictory: repeat measurements differ by percents, not by 2x.
constexpr double kContradictoryRatio = 2.0;

double PeakTflops(const GpuSpec& gpu, bool fp8) {
  if (!fp8) return gpu.tflops_bf16;
  return gpu.tflops_fp8 > 0 ? gpu.tflops_fp8 : 2 * gpu.tflops_bf16;
}

// A GEMM of m x n x k in `ns` faster than the GPU can go is refused.
Status CheckGemmRate(const MeasuredCsv& c, size_t r, const char* col, const GpuSpec& gpu, bool fp8, int64_t m,
                     int64_t n, int64_t k, double ns) {
  const double peak = PeakTflops(gpu, fp8);
  if (peak <= 0) return Status::Ok();
  const double tflops = 2.0 * double(m) * double(n) * double(k) / ns / 1e3;
  if (tflops <= kImpossibleFactor * peak) return Status::Ok();
  char why[256];
  std::snprintf(why, sizeof why, ": %lldx%lldx%lld in %.6g ms is %.3g TFLOP/s, over %.0fx %s's %s peak of %.0f",
                static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), ns / 1e6, tflops,
                kImpossibleFactor, gpu.name.c_str(), fp8 ? "FP8" : "bf16", peak);
  return Status::Invalid(c.Where(r, col) + why + " (an impossible measurement)");
}

Status CheckCopyRate(const MeasuredCsv& c, size_t r, const char* col, const GpuSpec& gpu, double gbs) {
  if (gpu.hbm_gbs <= 0 || gbs <= kImpossibleFactor * gpu.hbm_gbs) return Status::Ok();
  char why[192];
  std::snprintf(why, sizeof why,
                ": %.6g GB/s is over %.0fx %s's memory bandwidth of %.0f GB/s (an impossible measurement)", gbs,
                kImpossibleFactor, gpu.name.c_str(), gpu.hbm_gbs);
  return Status::Invalid(c.Where(r, col) + why);
}

// Rows measuring the same thing (`key`) must agree within
// kContradictoryRatio; the first row of each key is remembered.
class Duplicates {
 public:
  explicit Duplicates(const MeasuredCsv& c) : c_(c) {}
  Status Check(size_t r, const std::string& key, const char* col, double value) {
    auto [it, fresh] = seen_.emplace(key, std::pair{r, value});
    if (fresh) return Status::Ok();
    const double first = it->second.second;
    if (std::max(first, value) <= kContradictoryRatio * std::min(first, value)) return Status::Ok();
    char why[160];
    std::snprintf(why, sizeof why, ": %.6g here but %.6g at line %d for the same %s (contradictory duplicates)", value,
                  first, c_.line(it->second.first), key.c_str());
    return Status::Invalid(c_.Where(r, col) + why);
  }

 private:
  const MeasuredCsv& c_;
  std::map<std::string, std::pair<size_t, double>> seen_;
};

// fp8: every dimension a multiple of 16 (what cuBLASLt's FP8 kernels take).
Status ReadGemm(const MeasuredCsv& c, const GpuSpec& gpu, bool fp8, std::vector<MeasuredGemm>* out) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "time_ms"}));
  Duplicates dups(c);
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredGemm g;
    for (auto [col, dst] : {std::pair{"m", &g.m}, {"n", &g.n}, {"k", &g.k}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col));
      if (fp8 && v % 16 != 0) {
        return Status::Invalid(c.Where(r, col) + ": " + std::to_string(v) +
                               " is not a multiple of 16 (cuBLASLt's FP8 GEMMs need m, n and k multiples of 16)");
      }
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto t, c.Number(r, "time_ms"));
    g.time_ns = t * 1e6;
    BRAID_RETURN_IF_ERROR(CheckGemmRate(c, r, "time_ms", gpu, fp8, g.m, g.n, g.k, g.time_ns));
    BRAID_RETURN_IF_ERROR(dups.Check(r, "shape " + GemmShapeText(g.m, g.n, g.k), "time_ms", t));
    out->push_back(g);
  }
  return Status::Ok();
}

Status ReadHeld(const MeasuredCsv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "holder", "held_sms", "time_ms", "alone_ms"}));
  Duplicates dups(c);
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredHeldGemm h;
    for (auto [col, dst] : {std::pair{"m", &h.m}, {"n", &h.n}, {"k", &h.k}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col));
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto holder, c.Text(r, "holder"));
    if (holder != "spin" && holder != "copy") {
      return Status::Invalid(c.Where(r, "holder") + ": must be spin or copy, got '" + OneLine(holder) + "'");
    }
    h.copying = holder == "copy";
    BRAID_ASSIGN_OR_RETURN(auto held, c.Integer(r, "held_sms", true));
    if (held >= gpu.sm_count) {
      return Status::Invalid(c.Where(r, "held_sms") + ": " + std::to_string(held) + " is not below " + gpu.name +
                             "'s " + std::to_string(gpu.sm_count) + " SMs");
    }
    h.held_sms = int(held);
    BRAID_ASSIGN_OR_RETURN(auto t, c.Number(r, "time_ms"));
    BRAID_ASSIGN_OR_RETURN(auto a, c.Number(r, "alone_ms"));
    h.time_ns = t * 1e6;
    h.alone_ns = a * 1e6;
    BRAID_RETURN_IF_ERROR(CheckGemmRate(c, r, "time_ms", gpu, false, h.m, h.n, h.k, h.time_ns));
    BRAID_RETURN_IF_ERROR(CheckGemmRate(c, r, "alone_ms", gpu, false, h.m, h.n, h.k, h.alone_ns));
    const std::string key =
        "shape " + GemmShapeText(h.m, h.n, h.k) + " beside " + holder + " on " + std::to_string(held) + " SMs";
    BRAID_RETURN_IF_ERROR(dups.Check(r, key, "time_ms", t));
    b->held.push_back(h);
  }
  return Status::Ok();
}

Status ReadFused(const MeasuredCsv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "comm_sms", "gemm_ms", "bytes", "transfer_ms"}));
  Duplicates dups(c);
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredFused f;
    for (auto [col, dst] : {std::pair{"m", &f.m}, {"n", &f.n}, {"k", &f.k}, {"bytes", &f.bytes}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col));
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto s, c.Integer(r, "comm_sms"));
    if (s >= gpu.sm_count) {
      return Status::Invalid(c.Where(r, "comm_sms") + ": " + std::to_string(s) + " leaves no SMs of " + gpu.name +
                             "'s " + std::to_string(gpu.sm_count) + " for the GEMM");
    }
    f.comm_sms = int(s);
    BRAID_ASSIGN_OR_RETURN(auto g, c.Number(r, "gemm_ms"));
    BRAID_ASSIGN_OR_RETURN(auto t, c.Number(r, "transfer_ms"));
    f.gemm_ns = g * 1e6;
    f.transfer_ns = t * 1e6;
    BRAID_RETURN_IF_ERROR(CheckGemmRate(c, r, "gemm_ms", gpu, false, f.m, f.n, f.k, f.gemm_ns));
    BRAID_RETURN_IF_ERROR(CheckCopyRate(c, r, "transfer_ms", gpu, double(f.bytes) / f.transfer_ns));
    if (c.Has("engine")) {
      BRAID_ASSIGN_OR_RETURN(f.engine, c.Text(r, "engine"));
      if (f.engine != "tasks" && f.engine != "core") {
        return Status::Invalid(c.Where(r, "engine") + ": '" + OneLine(f.engine) + "' is not tasks or core");
      }
      // One file fits one kernel's figures: the GPU file has one set.
      if (!b->fused.empty() && b->fused.front().engine != f.engine) {
        return Status::Invalid(c.Where(r, "engine") + ": " + f.engine + " where the rows before are " +
                               b->fused.front().engine + " (one engine per file)");
      }
    }
    const std::string key = "shape " + GemmShapeText(f.m, f.n, f.k) + " on " + std::to_string(s) + " comm SMs";
    BRAID_RETURN_IF_ERROR(dups.Check(r, key, "gemm_ms", g));
    b->fused.push_back(f);
  }
  return Status::Ok();
}

// A whole number of `col` in [lo, hi].
Result<int64_t> Bounded(const MeasuredCsv& c, size_t r, const char* col, int64_t lo, int64_t hi) {
  BRAID_ASSIGN_OR_RETURN(auto v, c.Integer(r, col, lo == 0));
  if (v < lo || v > hi) {
    return Status::Invalid(c.Where(r, col) + ": " + std::to_string(v) + " is not in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
  }
  return v;
}

Status ReadKernels(const MeasuredCsv& c, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"m", "n", "k", "dtype", "kernel", "grid_ctas", "cluster_ctas", "max_active_clusters",
                                   "block_threads", "registers", "shared_bytes"}));
  for (size_t r = 0; r < c.rows(); ++r) {
    MeasuredGemmKernel g;
    // Past 2^24 a side no GEMM of a layer has; the kernel choice that
    // CompareKernelChoice models for each row stays in range.
    for (auto [col, dst] : {std::pair{"m", &g.m}, {"n", &g.n}, {"k", &g.k}}) {
      BRAID_ASSIGN_OR_RETURN(auto v, Bounded(c, r, col, 1, int64_t{1} << 24));
      *dst = v;
    }
    BRAID_ASSIGN_OR_RETURN(auto dtype, c.Text(r, "dtype"));
    if (dtype != "bf16" && dtype != "fp8_e4m3") {
      return Status::Invalid(c.Where(r, "dtype") + ": must be bf16 or fp8_e4m3, got '" + OneLine(dtype) + "'");
    }
    g.fp8 = dtype == "fp8_e4m3";
    BRAID_ASSIGN_OR_RETURN(auto kernel, c.Text(r, "kernel"));
    if (kernel.empty() || kernel.size() > kMaxKernelNameBytes) {
      return Status::Invalid(c.Where(r, "kernel") + ": a kernel name of 1 to " + std::to_string(kMaxKernelNameBytes) +
                             " bytes, got " + std::to_string(kernel.size()));
    }
    for (unsigned char ch : kernel) {
      if (ch < 0x20 || ch == 0x7f) return Status::Invalid(c.Where(r, "kernel") + ": a control character in the name");
    }
    g.kernel = kernel;
    // CUDA's own limits: a grid of at most 2^31 - 1 CTAs in x (far less in
    // all), clusters of at most 16 CTAs, 1024 threads and 255 registers per
    // thread, 228 KiB of shared memory per SM.
    BRAID_ASSIGN_OR_RETURN(g.grid_ctas, Bounded(c, r, "grid_ctas", 1, (int64_t{1} << 31) - 1));
    BRAID_ASSIGN_OR_RETURN(auto cluster, Bounded(c, r, "cluster_ctas", 1, 16));
    BRAID_ASSIGN_OR_RETURN(auto active, Bounded(c, r, "max_active_clusters", 0, 1 << 20));
    BRAID_ASSIGN_OR_RETURN(auto threads, Bounded(c, r, "block_threads", 1, 1024));
    BRAID_ASSIGN_OR_RETURN(auto regs, Bounded(c, r, "registers", 0, 255));
    BRAID_ASSIGN_OR_RETURN(g.shared_bytes, Bounded(c, r, "shared_bytes", 0, 228 << 10));
    g.cluster_ctas = int(cluster);
    g.max_active_clusters = int(active);
    g.block_threads = int(threads);
    g.registers = int(regs);
    b->kernels.push_back(std::move(g));
  }
  return Status::Ok();
}

Status ReadCopyBw(const MeasuredCsv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  BRAID_RETURN_IF_ERROR(c.Require({"sms", "gbs_read_plus_write"}));
  Duplicates dups(c);
  for (size_t r = 0; r < c.rows(); ++r) {
    BRAID_ASSIGN_OR_RETURN(auto s, c.Integer(r, "sms"));
    if (s > gpu.sm_count) {
      return Status::Invalid(c.Where(r, "sms") + ": " + std::to_string(s) + " is more than " + gpu.name + "'s " +
                             std::to_string(gpu.sm_count) + " SMs");
    }
    BRAID_ASSIGN_OR_RETURN(auto g, c.Number(r, "gbs_read_plus_write"));
    BRAID_RETURN_IF_ERROR(CheckCopyRate(c, r, "gbs_read_plus_write", gpu, g));
    BRAID_RETURN_IF_ERROR(dups.Check(r, "SM count " + std::to_string(s), "gbs_read_plus_write", g));
    b->copy_bw.push_back({int(s), g});
  }
  return Status::Ok();
}

// what,<value column> tables: every row names one of `known` once; the
// `required` ones must all be there.
Status ReadNamedRows(const MeasuredCsv& c, const char* value_col,
                     std::initializer_list<std::pair<const char*, double*>> known, size_t required) {
  BRAID_RETURN_IF_ERROR(c.Require({"what", value_col}));
  std::map<std::string, int, std::less<>> line_of;
  for (size_t r = 0; r < c.rows(); ++r) {
    BRAID_ASSIGN_OR_RETURN(auto w, c.Text(r, "what"));
    double* dst = nullptr;
    for (auto [name, d] : known) {
      if (w == name) dst = d;
    }
    if (dst == nullptr) {
      std::string names;
      for (auto [name, d] : known) names += (names.empty() ? "" : ", ") + std::string(name);
      return Status::Invalid(c.Where(r, "what") + ": unknown row '" + OneLine(w) + "' (known: " + names + ")");
    }
    if (auto [it, fresh] = line_of.emplace(w, c.line(r)); !fresh) {
      return Status::Invalid(c.Where(r, "what") + ": '" + w + "' again (first at line " + std::to_string(it->second) +
                             ")");
    }
    BRAID_ASSIGN_OR_RETURN(auto v, c.Number(r, value_col));
    *dst = v;
  }
  size_t i = 0;
  for (auto [name, d] : known) {
    if (i++ < required && line_of.find(name) == line_of.end()) {
      return Status::Invalid(c.name() + ": no row '" + name + "'");
    }
  }
  return Status::Ok();
}

Status ReadCopyEngine(const MeasuredCsv& c, const GpuSpec& gpu, MeasuredBoard* b) {
  MeasuredCopyEngine& e = b->copy_engine;
  double alone_ms = 0, beside_ms = 0, copy_ms = 0;
  BRAID_RETURN_IF_ERROR(ReadNamedRows(c, "value",
                                      {{"gemm_8192_cubed_alone_ms", &alone_ms},
                                       {"gemm_8192_cubed_beside_ce_copy_ms", &beside_ms},
                                       {"ce_d2d_copy_2GiB_ms", &copy_ms},
                                       {"ce_gbs_read_plus_write", &e.copy_gbs}},
                                      4));
  e.gemm_alone_ns = alone_ms * 1e6;
  e.gemm_beside_ns = beside_ms * 1e6;
  e.copy_ns = copy_ms * 1e6;
  for (size_t r = 0; r < c.rows(); ++r) {
    auto w = c.Text(r, "what");
    if (!w.ok()) continue;
    if (*w == "gemm_8192_cubed_alone_ms" || *w == "gemm_8192_cubed_beside_ce_copy_ms") {
      BRAID_RETURN_IF_ERROR(CheckGemmRate(c, r, "value", gpu, false, 8192, 8192, 8192,
                                          *w == "gemm_8192_cubed_alone_ms" ? e.gemm_alone_ns : e.gemm_beside_ns));
    } else if (*w == "ce_gbs_read_plus_write") {
      BRAID_RETURN_IF_ERROR(CheckCopyRate(c, r, "value", gpu, e.copy_gbs));
    }
  }
  e.present = true;
  return Status::Ok();
}

Status ReadLaunchGaps(const MeasuredCsv& c, MeasuredBoard* b) {
  MeasuredLaunch& l = b->launch;
  BRAID_RETURN_IF_ERROR(ReadNamedRows(c, "ns_p50",
                                      {{"same_stream_start_to_start", &l.same_stream_ns},
                                       {"cross_stream_event_wait_start_to_start", &l.cross_stream_ns},
                                       {"graph_same_stream_start_to_start", &l.graph_same_stream_ns},
                                       {"graph_cross_stream_event_wait_start_to_start", &l.graph_cross_stream_ns}},
                                      0));
  l.present = l.same_stream_ns > 0 && l.cross_stream_ns > 0;
  return Status::Ok();
}

}  // namespace

std::string GemmShapeText(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

const std::vector<std::string>& MeasuredFileNames() {
  static const std::vector<std::string> names = {"gemm_bf16.csv",   "gemm_beside_held_sms.csv", "copy_kernel_bw.csv",
                                                 "copy_engine.csv", "launch_gaps.csv",          "fused_kernel.csv",
                                                 "gemm_fp8.csv",    "gemm_kernels.csv"};
  return names;
}

Status ReadMeasuredFile(const std::string& name, std::string_view text, const GpuSpec& gpu, MeasuredBoard* board) {
  BRAID_ASSIGN_OR_RETURN(auto c, MeasuredCsv::Parse(text, name));
  if (name == "gemm_bf16.csv") return ReadGemm(c, gpu, false, &board->gemm);
  if (name == "gemm_fp8.csv") return ReadGemm(c, gpu, true, &board->gemm_fp8);
  if (name == "gemm_beside_held_sms.csv") return ReadHeld(c, gpu, board);
  if (name == "copy_kernel_bw.csv") return ReadCopyBw(c, gpu, board);
  if (name == "copy_engine.csv") return ReadCopyEngine(c, gpu, board);
  if (name == "launch_gaps.csv") return ReadLaunchGaps(c, board);
  if (name == "fused_kernel.csv") return ReadFused(c, gpu, board);
  if (name == "gemm_kernels.csv") return ReadKernels(c, board);
  return Status::Invalid("'" + OneLine(name) + "' is not a measurement file");
}

Result<MeasuredBoard> ReadMeasuredBoard(const std::string& dir, const GpuSpec& gpu) {
  MeasuredBoard b;
  b.dir = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::Invalid("measurements folder '" + OneLine(dir) + "' does not exist");
  int found = 0;
  std::string names;
  for (const std::string& name : MeasuredFileNames()) {
    names += (names.empty() ? "" : ", ") + name;
    const fs::path p = fs::path(dir) / name;
    if (!fs::exists(p, ec)) continue;
    ++found;
    BRAID_ASSIGN_OR_RETURN(auto text, ReadUserFile(p.string(), "CSV file"));
    BRAID_RETURN_IF_ERROR(ReadMeasuredFile(name, text, gpu, &b));
  }
  if (found == 0) return Status::Invalid("measurements folder '" + OneLine(dir) + "' has none of " + names);
  return b;
}

}  // namespace braid::sim
