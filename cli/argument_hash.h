// The hash by which the ranks of an mpirun job tell that they were started
// with different arguments (SameAsRank0) instead of hanging. It is taken
// from what CLI11 parsed for the command, every option of it, so that a
// flag added later is in the hash without anyone listing it; a command
// names only the options that change nothing but its printing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace braid::cli {

// One line per option of `command` (its long name, how often it was given,
// the values it took), sorted by name, the options named in `printing_only`
// left out: equal for equal requests, whatever order the flags came in.
std::string CanonicalArguments(const CLI::App& command, std::initializer_list<std::string_view> printing_only);

// FNV-1a of CanonicalArguments.
uint64_t ArgumentsHash(const CLI::App& command, std::initializer_list<std::string_view> printing_only);

// FNV-1a of `key`: what SameAsRank0 compares across the ranks of a job.
uint64_t HashOfArguments(std::string_view key);

}  // namespace braid::cli
