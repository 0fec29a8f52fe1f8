#include "braid/sim_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "braid/median.h"
#include "braid/sim_error_band.h"
#include "braid/sim_models.h"

namespace braid::sim {

namespace {

CheckRow Row(std::string what, double measured, double predicted, double tolerance, const std::string& source) {
  CheckRow r;
  r.what = std::move(what);
  r.measured = measured;
  r.predicted = predicted;
  r.error_pct = (predicted - measured) / measured * 100.0;
  r.source = source;
  r.tolerance_pct = tolerance;
  return r;
}

double Ms(double ns) { return ns / 1e6; }

// GB/s the fused kernel's comm CTAs move (bytes, not read + written): the
// per-CTA rate (else what one SM copies), capped like the sim's fused model
// by what those SMs copy. No link: the probe's peers are on its own GPU.
double FusedTransferGbs(const GpuSpec& gpu, int comm_sms) {
  const double per_cta = gpu.fused_sm_transfer_gbs > 0 ? gpu.fused_sm_transfer_gbs : CopyBandwidthGbs(gpu, 1) / 2;
  double gbs = per_cta * double(comm_sms);
  if (gpu.sm_copy_gbs > 0) gbs = std::min(gbs, CopyBandwidthGbs(gpu, comm_sms) / 2);
  return gbs;
}

// The fused kernel's GEMM half on the SMs its comm CTAs leave.
double FusedGemmBodyNs(const GpuSpec& gpu, const MeasuredFused& f) {
  const int sms = std::max(1, gpu.sm_count - f.comm_sms);
  return GemmCostOf(gpu, f.m, f.n, f.k, DType::kBf16, sms).BodyNs(sms) / gpu.fused_gemm_efficiency;
}

}  // namespace

bool MeasuredCheck::ok() const {
  for (const CheckRow& r : rows) {
    if (!r.ok()) return false;
  }
  return gemm_mean_abs_pct <= kGemmMeanTolerancePct;
}

MeasuredCheck CheckMeasuredBoard(const GpuSpec& file_gpu, const MeasuredBoard& b) {
  MeasuredCheck out;
  const std::string src = b.dir;
  const DType bf16 = DType::kBf16;
  GpuSpec gpu = file_gpu;
  out.board_rate = gpu.board_rate;
  if (!b.gemm.empty()) {
    // This board's rate: scaled until the geometric mean of predicted over
    // measured is 1 (compute-bound times follow 1 / rate, memory-bound ones
    // do not, hence a few rounds).
    std::vector<double> pred(b.gemm.size());
    for (int round = 0; round < 4; ++round) {
      double log_sum = 0;
      for (size_t i = 0; i < b.gemm.size(); ++i) {
        const MeasuredGemm& g = b.gemm[i];
        pred[i] = GemmTimeNs(gpu, g.m, g.n, g.k, bf16);
        log_sum += std::log(pred[i] / g.time_ns);
      }
      if (round == 3) break;
      gpu.board_rate = std::clamp(gpu.board_rate * std::exp(log_sum / double(b.gemm.size())), 0.05, 2.0);
    }
    out.board_rate = gpu.board_rate;
    double abs_sum = 0;
    for (size_t i = 0; i < b.gemm.size(); ++i) {
      const MeasuredGemm& g = b.gemm[i];
      out.rows.push_back(
          Row("gemm_bf16 " + GemmShapeText(g.m, g.n, g.k) + " ms", Ms(g.time_ns), Ms(pred[i]), kGemmTolerancePct, src));
      abs_sum += std::abs(out.rows.back().error_pct);
    }
    out.gemm_mean_abs_pct = abs_sum / double(b.gemm.size());
  }
  for (const MeasuredHeldGemm& h : b.held) {
    const double alone = GemmTimeNs(gpu, h.m, h.n, h.k, bf16);
    const double beside = GemmBesideHeldSmsNs(gpu, h.m, h.n, h.k, bf16, h.held_sms, h.copying);
    out.rows.push_back(Row("held " + GemmShapeText(h.m, h.n, h.k) + (h.copying ? " copy " : " spin ") +
                               std::to_string(h.held_sms) + " SMs ms",
                           Ms(h.time_ns), Ms(beside * h.alone_ns / alone), kHeldTolerancePct, src));
  }
  for (const MeasuredCopyBw& c : b.copy_bw) {
    out.rows.push_back(Row("copy kernel on " + std::to_string(c.sms) + " SMs GB/s", c.gbs, CopyBandwidthGbs(gpu, c.sms),
                           kBandwidthTolerancePct, src));
  }
  if (b.copy_engine.present) {
    const MeasuredCopyEngine& e = b.copy_engine;
    const double alone = GemmTimeNs(gpu, 8192, 8192, 8192, bf16);
    out.rows.push_back(Row("gemm 8192^3 beside a copy-engine copy ms", Ms(e.gemm_beside_ns),
                           Ms(GemmBesideCopyEngineNs(gpu, 8192, 8192, 8192, bf16) * e.gemm_alone_ns / alone),
                           kContentionTolerancePct, src));
    out.rows.push_back(Row("copy engine GB/s (read + write)", e.copy_gbs, gpu.hbm_gbs * gpu.hbm_efficiency,
                           kBandwidthTolerancePct, src));
  }
  if (b.launch.graph()) {
    const MeasuredLaunch& l = b.launch;
    out.rows.push_back(Row("launch gap, one stream, CUDA graph us", l.graph_same_stream_ns / 1e3, gpu.launch_us,
                           kLaunchTolerancePct, src));
    out.rows.push_back(Row("launch gap across an event, CUDA graph us", l.graph_cross_stream_ns / 1e3,
                           gpu.launch_us + gpu.event_wait_us, kLaunchTolerancePct, src));
  }
  for (const MeasuredFused& f : b.fused) {
    const std::string at = GemmShapeText(f.m, f.n, f.k) + " on " + std::to_string(f.comm_sms) + " comm SMs" +
                           (f.engine == "tasks" ? "" : " (" + f.engine + ")");
    const double launch = gpu.launch_us * 1e3;
    out.rows.push_back(Row("fused GEMM half " + at + " ms", Ms(f.gemm_ns), Ms(launch + FusedGemmBodyNs(gpu, f)),
                           kFusedTolerancePct, src));
    out.rows.push_back(Row("fused transfer half " + at + " ms", Ms(f.transfer_ns),
                           Ms(launch + double(f.bytes) / FusedTransferGbs(gpu, f.comm_sms)), kFusedTolerancePct, src));
  }
  // FP8 GEMMs at the same board rate, where the file has an FP8 peak.
  if (gpu.tflops_fp8 > 0) {
    for (const MeasuredGemm& g : b.gemm_fp8) {
      out.rows.push_back(Row("gemm_fp8 " + GemmShapeText(g.m, g.n, g.k) + " ms", Ms(g.time_ns),
                             Ms(GemmTimeNs(gpu, g.m, g.n, g.k, DType::kFp8E4m3)), kGemmTolerancePct, src));
    }
  }
  return out;
}

namespace {

struct Param {
  std::string name;
  double* value;
  double lo, hi;
};

std::vector<Param> ParamsOf(GpuSpec& g, const MeasuredBoard& b) {
  std::vector<Param> p;
  const bool gemm = !b.gemm.empty() || !b.held.empty() || b.copy_engine.present;
  if (gemm) {
    for (GemmKernel& k : g.kernels) {
      p.push_back({"kernel " + std::to_string(k.tile_m) + "x" + std::to_string(k.tile_n) + " efficiency", &k.efficiency,
                   0.05, 1.0});
    }
    p.push_back({"tile_overhead_us", &g.tile_overhead_us, 0.0, 20.0});
    p.push_back({"stream_k_fixup", &g.stream_k_fixup, 0.0, 2.0});
    p.push_back({"split_k_traffic", &g.split_k_traffic, 0.0, 1.0});
    // Graph-measured gaps set launch_us outright; host-measured ones bound it.
    if (!b.launch.graph()) {
      const double hi = b.launch.present ? std::min(20.0, b.launch.same_stream_ns / 1e3) : 20.0;
      p.push_back({"launch_us", &g.launch_us, 0.0, hi});
    }
  }
  if (!b.held.empty()) {
    p.push_back({"sm_boost_exponent", &g.sm_boost_exponent, 0.0, 0.9});
    p.push_back({"sm_boost_cap", &g.sm_boost_cap, 1.0, 2.0});
  }
  if (gemm || !b.copy_bw.empty()) p.push_back({"hbm_efficiency", &g.hbm_efficiency, 0.3, 1.0});
  if (!b.copy_bw.empty()) p.push_back({"sm_copy_gbs", &g.sm_copy_gbs, 1.0, 1000.0});
  if (b.copy_engine.present || std::any_of(b.held.begin(), b.held.end(), [](auto& h) { return h.copying; })) {
    p.push_back({"l2_miss", &g.l2_miss, 0.0, 1.0});
    p.push_back({"hbm_copy_weight", &g.hbm_copy_weight, 0.1, 10.0});
    if (b.copy_engine.present) p.push_back({"hbm_ce_weight", &g.hbm_ce_weight, 0.1, 10.0});
  }
  return p;
}

// Per file: (mean |error| + the worst) over the file's tolerance, summed,
// plus a steep penalty for rows past 90 % of their tolerance,
// on the errors the check reports (gemm_bf16 with its per-board factor).
double Loss(const GpuSpec& g, const MeasuredBoard& b) {
  const MeasuredCheck c = CheckMeasuredBoard(g, b);
  double loss = 0;
  size_t row = 0;
  const auto group = [&](size_t count, double tolerance) {
    if (count == 0) return;
    double sum = 0, worst = 0;
    for (size_t i = 0; i < count; ++i, ++row) {
      const double e = c.rows[row].error_pct;
      sum += std::abs(e);
      worst = std::max(worst, std::abs(e));
      // Rows near their tolerance weigh more: the check is pass / fail.
      loss += 30 * std::max(0.0, std::abs(e) - 0.9 * tolerance) / tolerance;
    }
    loss += (sum / double(count) + worst) / tolerance;
  };
  group(b.gemm.size(), kGemmTolerancePct);
  // gemm_bf16 also has a tolerance on its mean.
  if (!b.gemm.empty()) {
    loss += c.gemm_mean_abs_pct / kGemmMeanTolerancePct +
            10 * std::max(0.0, c.gemm_mean_abs_pct - 0.9 * kGemmMeanTolerancePct) / kGemmMeanTolerancePct;
  }
  group(b.held.size(), kHeldTolerancePct);
  group(b.copy_bw.size(), kBandwidthTolerancePct);
  group(b.copy_engine.present ? 2 : 0, kContentionTolerancePct);
  return loss;
}

}  // namespace

namespace {

// One deterministic random search from `start`: two parameters at a time
// scaled by up to e^±step, kept when the loss falls; the step halves four
// times. mt19937's sequence is fixed by the standard; the distributions are
// not, so they are derived here.
GpuSpec Search(const GpuSpec& start, const MeasuredBoard& board, uint32_t seed, int iterations,
               const std::function<void(int done)>& progress, double* loss) {
  GpuSpec best = start;
  double best_loss = Loss(best, board);
  std::mt19937 gen(seed);
  const auto unit = [&] { return double(gen()) / 4294967296.0; };
  double step = 0.4;
  const int quarter = std::max(iterations / 5, 1);
  for (int it = 0; it < iterations; ++it) {
    GpuSpec trial = best;
    std::vector<Param> params = ParamsOf(trial, board);
    if (params.empty()) break;
    for (int j = 0; j < 2; ++j) {
      Param& p = params[size_t(gen() % params.size())];
      const double factor = std::exp(step * (2 * unit() - 1));
      const double v = *p.value > 0 ? *p.value * factor : p.lo + (p.hi - p.lo) * 0.01 * unit();
      *p.value = std::clamp(v, p.lo, p.hi);
    }
    const double l = Loss(trial, board);
    if (l < best_loss) {
      best = trial;
      best_loss = l;
    }
    if (it % quarter == quarter - 1) step *= 0.5;
    if (progress && it % 1000 == 999) progress(it + 1);
  }
  *loss = best_loss;
  return best;
}

// Pattern search: each parameter up and down by `delta` (relative), kept
// when the loss falls; delta halves when no move helps.
GpuSpec Polish(GpuSpec best, const MeasuredBoard& board, double* loss) {
  double best_loss = Loss(best, board);
  for (double delta = 0.2; delta > 1e-3;) {
    bool moved = false;
    const size_t count = ParamsOf(best, board).size();
    for (size_t i = 0; i < count; ++i) {
      for (double sign : {1.0, -1.0}) {
        GpuSpec trial = best;
        Param p = ParamsOf(trial, board)[i];
        const double v = *p.value > 0 ? *p.value * (1 + sign * delta) : p.lo + (p.hi - p.lo) * delta;
        *p.value = std::clamp(v, p.lo, p.hi);
        const double l = Loss(trial, board);
        if (l < best_loss) {
          best = trial;
          best_loss = l;
          moved = true;
          break;
        }
      }
    }
    if (!moved) delta *= 0.5;
  }
  *loss = best_loss;
  return best;
}

// The fused kernel's two figures, read straight from fused_kernel.csv:
// fused_gemm_efficiency = the chosen kernel's time on the SMs the fused
// kernel leaves its GEMM (at this board's own rate) over the measured one,
// at most 1; fused_sm_transfer_gbs = bytes / time / comm CTAs. Medians.
// (The check's transfer rows also cap the rate by what the SMs copy.)
// @pre board.fused is not empty.
void FitFusedKernel(const MeasuredBoard& board, GpuSpec* g, std::vector<FittedParameter>* params) {
  GpuSpec own = *g;
  own.board_rate = CheckMeasuredBoard(*g, board).board_rate;
  // Each row is one kernel, its launch gap included: taken off (at most
  // half the time, so a gap larger than the kernel cannot flip the figure).
  const double launch = own.launch_us * 1e3;
  const auto body = [&](double ns) { return std::max(ns - launch, 0.5 * ns); };
  std::vector<double> eff, gbs;
  own.fused_gemm_efficiency = 1;
  for (const MeasuredFused& f : board.fused) {
    eff.push_back(FusedGemmBodyNs(own, f) / body(f.gemm_ns));
    gbs.push_back(double(f.bytes) / body(f.transfer_ns) / double(f.comm_sms));
  }
  params->push_back({"fused_gemm_efficiency", g->fused_gemm_efficiency, std::clamp(*Median(eff), 0.001, 1.0)});
  params->push_back({"fused_sm_transfer_gbs", g->fused_sm_transfer_gbs, std::min(*Median(gbs), 1e5)});
  g->fused_gemm_efficiency = params->end()[-2].after;
  g->fused_sm_transfer_gbs = params->back().after;
}

// launch_gaps.csv's figures (see FitGpuToMeasurements in the header).
void ApplyLaunchGaps(const MeasuredLaunch& l, GpuSpec* g) {
  if (l.graph()) {
    g->launch_us = l.graph_same_stream_ns / 1e3;
    g->event_wait_us = std::max(0.0, l.graph_cross_stream_ns - l.graph_same_stream_ns) / 1e3;
  } else if (l.present) {
    g->launch_us = std::min(g->launch_us, l.same_stream_ns / 1e3);
    g->event_wait_us = std::min(g->event_wait_us, std::max(0.0, l.cross_stream_ns - l.same_stream_ns) / 1e3);
  }
}

// The search evaluates the loss tens of thousands of times, each over every
// row: on more than kSearchRowsPerFile rows of a file it searches rows spread
// evenly over the file's range of work, so that a fit stays linear in the
// rows (all of them are read, and checked before and after the fit).
constexpr size_t kSearchRowsPerFile = 256;

template <class Row, class Work>
std::vector<Row> SpreadRows(std::vector<Row> rows, Work work) {
  if (rows.size() <= kSearchRowsPerFile) return rows;
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return work(a) < work(b); });
  std::vector<Row> out;
  out.reserve(kSearchRowsPerFile);
  for (size_t i = 0; i < kSearchRowsPerFile; ++i) out.push_back(rows[i * (rows.size() - 1) / (kSearchRowsPerFile - 1)]);
  return out;
}

// What the search reads: the first four files (fused_kernel's and
// gemm_fp8's rows are fitted after it, from the fitted GEMM model), spread.
MeasuredBoard SearchedBoard(const MeasuredBoard& board) {
  MeasuredBoard searched;
  searched.dir = board.dir;
  const auto volume = [](const auto& g) { return double(g.m) * double(g.n) * double(g.k); };
  searched.gemm = SpreadRows(board.gemm, volume);
  searched.held = SpreadRows(board.held, volume);
  searched.copy_bw = SpreadRows(board.copy_bw, [](const MeasuredCopyBw& c) { return c.sms; });
  searched.copy_engine = board.copy_engine;
  searched.launch = board.launch;
  return searched;
}

}  // namespace

// gemm_fp8.csv: efficiency_fp8 scaled until the FP8 rows' geometric-mean
// error is 0 on the fitted GEMM model (a few rounds: memory-bound shapes do
// not follow 1 / efficiency). tflops_fp8 is a published peak and stays; a
// base without one gets twice tflops_bf16 (Hopper's and Ada's dense ratio).
void FitFp8Gemms(const MeasuredBoard& board, GpuSpec* g, std::vector<FittedParameter>* params) {
  const double peak_before = g->tflops_fp8, eff_before = g->efficiency_fp8;
  if (g->tflops_fp8 <= 0) g->tflops_fp8 = 2 * g->tflops_bf16;
  if (g->efficiency_fp8 <= 0) g->efficiency_fp8 = g->efficiency_bf16;
  for (int round = 0; round < 8; ++round) {
    double log_sum = 0;
    for (const MeasuredGemm& r : board.gemm_fp8) {
      log_sum += std::log(GemmTimeNs(*g, r.m, r.n, r.k, DType::kFp8E4m3) / r.time_ns);
    }
    g->efficiency_fp8 = std::clamp(g->efficiency_fp8 * std::exp(log_sum / double(board.gemm_fp8.size())), 0.01, 1.0);
  }
  if (peak_before != g->tflops_fp8) params->push_back({"tflops_fp8", peak_before, g->tflops_fp8});
  params->push_back({"efficiency_fp8", eff_before, g->efficiency_fp8});
}

GpuFit FitGpuToMeasurements(const GpuSpec& base, const MeasuredBoard& board, const FitOptions& options) {
  const bool keep_board_rate = options.keep_board_rate;
  GpuFit fit;
  fit.before = CheckMeasuredBoard(base, board);
  GpuSpec best = base;
  if (best.kernels.empty()) {
    for (auto [tm, tn] : {std::pair{128, 256}, {128, 128}, {64, 256}, {64, 128}}) {
      best.kernels.push_back({tm, tn, base.efficiency_bf16});
    }
    if (best.sm_copy_gbs <= 0 && !board.copy_bw.empty()) best.sm_copy_gbs = 50;
  }
  if (!board.copy_bw.empty() && best.sm_copy_gbs <= 0) best.sm_copy_gbs = 50;
  ApplyLaunchGaps(board.launch, &best);
  const GpuSpec start = best;
  const MeasuredBoard searched = SearchedBoard(board);
  double best_loss = Loss(best, searched);
  const int chains = std::max(options.chains, 1);
  const int iterations = std::max(options.iterations, 0);
  for (int c = 0; c < chains; ++c) {
    double loss = 0;
    const auto progress = [&](int done) {
      if (options.progress) options.progress(double(c) / chains + double(done) / (double(iterations) * chains));
    };
    GpuSpec found = Search(start, searched, 20261123u + uint32_t(c), iterations, progress, &loss);
    found = Polish(found, searched, &loss);
    if (options.progress) options.progress(double(c + 1) / chains);
    if (loss < best_loss) {
      best = found;
      best_loss = loss;
    }
  }
  GpuSpec before_params = base;
  if (before_params.kernels.empty()) before_params.kernels = best.kernels;  // names line up
  std::vector<Param> old_p = ParamsOf(before_params, board);
  std::vector<Param> new_p = ParamsOf(best, board);
  for (size_t i = 0; i < new_p.size(); ++i) {
    const bool seeded = base.kernels.empty() && new_p[i].name.rfind("kernel", 0) == 0;
    fit.parameters.push_back({new_p[i].name, seeded ? base.efficiency_bf16 : *old_p[i].value, *new_p[i].value});
  }
  // The loss sees gemm_bf16 through the per-board factor, so the search
  // leaves the rate free: set it to this board's (factor 1), or anchor it on
  // the base file's 8192³ GEMM (its published figure) keeping the shapes'
  // trends of this board.
  for (int i = 0; i < 4; ++i) {
    if (keep_board_rate) {
      best.board_rate *=
          GemmTimeNs(best, 8192, 8192, 8192, DType::kBf16) / GemmTimeNs(base, 8192, 8192, 8192, DType::kBf16);
    } else {
      best.board_rate = CheckMeasuredBoard(best, board).board_rate;
    }
  }
  if (keep_board_rate) {
    // Fold the rate into the kernels so the file reads at base's board_rate.
    const double scale = best.board_rate / base.board_rate;
    bool fits = true;
    for (const GemmKernel& k : best.kernels) fits = fits && k.efficiency * scale <= 1.0;
    if (fits) {
      for (GemmKernel& k : best.kernels) k.efficiency *= scale;
      for (FittedParameter& p : fit.parameters) {
        if (p.name.rfind("kernel", 0) == 0) p.after *= scale;
      }
      best.board_rate = base.board_rate;
    }
  }
  fit.parameters.insert(fit.parameters.begin(), {"board_rate", base.board_rate, best.board_rate});
  if (board.launch.graph()) fit.parameters.push_back({"launch_us", base.launch_us, best.launch_us});
  if (board.launch.present || board.launch.graph())
    fit.parameters.push_back({"event_wait_us", base.event_wait_us, best.event_wait_us});
  if (!board.fused.empty()) FitFusedKernel(board, &best, &fit.parameters);
  if (!board.gemm_fp8.empty()) FitFp8Gemms(board, &best, &fit.parameters);
  const std::string note = "; kernel model fitted to " + board.dir + " by braid calibrate --fit";
  if (base.source.find(note) == std::string::npos) best.source = base.source + note;
  // The fitted file's bands: what its own predictions miss these rows by.
  const DerivedGpuBand band = DeriveGpuErrorBand(best, board);
  if (band.gemm || band.gemm_held_sms) {
    best.error_band.gemm = band.gemm.value_or(base.error_band.gemm);
    best.error_band.gemm_held_sms = band.gemm_held_sms.value_or(base.error_band.gemm_held_sms);
    if (band.gemm) best.error_band.gemm_assumed = false;
    if (band.gemm_held_sms) best.error_band.gemm_held_sms_assumed = false;
    best.error_band.source = "90th percentile of |error| over " + board.dir +
                             "'s rows (braid calibrate --fit); the rest as " + base.name + "'s";
  }
  fit.gpu = best;
  fit.after = CheckMeasuredBoard(best, board);
  return fit;
}

Result<std::string> FittedGpuFile(const GpuFit& fit, std::string_view header, std::string_view base_name) {
  std::string text(header);
  text += "# Fitted to those measurements:";
  for (const FittedParameter& p : fit.parameters) text += (&p == &fit.parameters.front() ? " " : ", ") + p.name;
  text += ".\n# Every other figure is " + std::string(base_name) + "'s, with its sources.\n" + GpuToml(fit.gpu);
  // What is written must load as a GPU file.
  if (auto back = ParseGpuToml(text, "the fitted GPU file"); !back.ok()) {
    return Status::Internal("the fitted GPU file does not read back: " + back.status().message());
  }
  return text;
}

}  // namespace braid::sim
