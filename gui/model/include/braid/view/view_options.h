// braid-view's command line:
//   braid-view [FILE.db] [--db FILE] [--run ID] [--compare ID] [--session ID]
//              [--screenshot OUT.png] [--size WxH]
// Checked before a window opens; a bad flag is one line and exit 2. A flag
// given twice is refused (which one was meant cannot be known), as is an
// empty value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/status.h"

namespace braid::view {

struct ViewOptions {
  std::string db;  // "" opens no store
  std::optional<int64_t> run, compare, session;
  std::string screenshot;  // "" shows the window
  int width = 1600, height = 1000;
  bool help = false;  // --help / -h: print ViewUsage() and exit 0
};

// The usage text --help prints (several lines, ending in a newline).
std::string ViewUsage();

// `args` excludes the program name.
Result<ViewOptions> ParseViewOptions(const std::vector<std::string>& args);

// Opens the store read-only and checks that the runs or session named
// exist and that the screenshot's folder is writable: the command line's
// "exit 2 before a window opens".
Status CheckViewTargets(const ViewOptions& o);

}  // namespace braid::view
