// Exit codes of the braid command (docs/design.md): 0 success, 2 bad usage or bad
// input, 1 a failure while running. Every error is one line on stderr.
//
// From a library's Status: kInvalidArgument and kNotFound (what the user gave
// us) exit 2; kUnavailable and kInternal exit 1.
#pragma once

#include <cstddef>
#include <string_view>

#include "braid/budgets.h"
#include "braid/status.h"

namespace braid::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Prints "braid <command>: <message>" and returns the exit code for `s`. The
// fields a library message names become the flags that set them
// (field_flags.h): "`comm_lanes` must be ..." prints "--streams must be ...".
// The message is one line whatever it quotes: control bytes (a newline in a
// path) escaped as \n or \xNN, and cut in the middle past kMaxMessageBytes.
int ReportError(std::string_view command, const Status& s);

}  // namespace braid::cli
