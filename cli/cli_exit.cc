#include "cli_exit.h"

#include <cstdio>
#include <string>

namespace braid::cli {

int ReportError(std::string_view command, const Status& s) {
  std::string line = "braid";
  if (!command.empty()) line += " " + std::string(command);
  line += ": " + s.message() + "\n";
  std::fputs(line.c_str(), stderr);
  return s.is_user_error() ? kExitUsage : kExitFailure;
}

}  // namespace braid::cli
