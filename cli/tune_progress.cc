#include "tune_progress.h"

#include <cmath>

#include "run_report.h"

namespace braid::cli {

TuneProgress::TuneProgress(std::FILE* out, bool tty, bool enabled) : out_(out), tty_(tty), enabled_(enabled) {}

std::string FormatEta(double seconds) {
  char buf[32];
  if (seconds < 10) {
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  } else if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.0fs", seconds);
  } else {
    const long s = long(std::lround(seconds));
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  }
  return buf;
}

void TuneProgress::StartTarget(const std::string& label) {
  label_ = label;
  start_ = std::chrono::steady_clock::now();
  last_tenth_ = -1;
}

void TuneProgress::Update(const SearchProgress& p, const std::string& best_config) {
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int planned = std::max(p.trials_planned, 1);
  const double eta = p.trials_done > 0 ? elapsed / p.trials_done * std::max(0, planned - p.trials_done) : 0;
  const std::string best = p.best_ns > 0 ? FormatDuration(p.best_ns) + " " + best_config : "-";
  if (tty_) {
    constexpr int kWidth = 24;
    const int filled = std::min(kWidth, kWidth * p.trials_done / planned);
    std::string bar(size_t(filled), '#');
    bar += std::string(size_t(kWidth - filled), '.');
    std::fprintf(out_, "\r\033[K%s [%s] %d/%d trials  best %s  ETA %s", label_.c_str(), bar.c_str(), p.trials_done,
                 planned, best.c_str(), FormatEta(eta).c_str());
  } else {
    const int tenth = 10 * p.trials_done / planned;
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
    std::fprintf(out_, "%s: %d/%d trials, best %s, ETA %s\n", label_.c_str(), p.trials_done, planned, best.c_str(),
                 FormatEta(eta).c_str());
  }
  std::fflush(out_);
}

void TuneProgress::FinishTarget(const std::string& summary) {
  if (!enabled_) return;
  if (tty_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "%s: %s\n", label_.c_str(), summary.c_str());
  std::fflush(out_);
}

}  // namespace braid::cli
