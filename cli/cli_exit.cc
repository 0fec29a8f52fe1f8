#include "cli_exit.h"

#include <cstdio>
#include <string>

#include "field_flags.h"

namespace braid::cli {

namespace {

// A message stays one line of readable length whatever it quotes (a path
// with a newline, a 20 MB kernel name): control bytes escaped, the middle
// cut, never inside a UTF-8 sequence.
std::string Bounded(std::string text) {
  text = OneLine(text);
  if (text.size() <= kMaxMessageBytes) return text;
  size_t cut = kMaxMessageBytes - 200;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  size_t tail = text.size() - 160;
  while (tail < text.size() && (static_cast<unsigned char>(text[tail]) & 0xC0) == 0x80) ++tail;
  return text.substr(0, cut) + " [... " + std::to_string(tail - cut) + " bytes cut ...] " + text.substr(tail);
}

}  // namespace

int ReportError(std::string_view command, const Status& s) {
  std::string line = "braid";
  if (!command.empty()) line += " " + std::string(command);
  line += ": " + Bounded(FlagWorded(s.message())) + "\n";  // the library's `comm_lanes` is our --streams
  std::fputs(line.c_str(), stderr);
  return s.is_user_error() ? kExitUsage : kExitFailure;
}

}  // namespace braid::cli
