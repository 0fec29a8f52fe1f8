#include "cli_exit.h"

#include <cstdio>
#include <string>

#include "field_flags.h"

namespace braid::cli {

int ReportError(std::string_view command, const Status& s) {
  std::string line = "braid";
  if (!command.empty()) line += " " + std::string(command);
  line += ": " + FlagWorded(s.message()) + "\n";  // the library's `comm_lanes` is our --streams
  std::fputs(line.c_str(), stderr);
  return s.is_user_error() ? kExitUsage : kExitFailure;
}

}  // namespace braid::cli
