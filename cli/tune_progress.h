// Progress of `braid tune` on stderr: a bar redrawn in place on a terminal
// (trials done, best so far, ETA), plain lines in a pipe or CI (one per
// tenth of the plan, so logs stay short).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "braid/search.h"

namespace braid::cli {

class TuneProgress {
 public:
  // `tty`: redraw in place; `enabled` false prints nothing.
  TuneProgress(std::FILE* out, bool tty, bool enabled);

  // A new op: "fc1 (2/4)".
  void StartTarget(const std::string& label);
  void Update(const SearchProgress& p, const std::string& best_config);
  void FinishTarget(const std::string& summary);

 private:
  std::FILE* out_;
  bool tty_, enabled_;
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  int last_tenth_ = -1;
};

// "1m05s", "42s", "0.8s".
std::string FormatEta(double seconds);

}  // namespace braid::cli
