// Library messages name the fields their callers set, marked in backticks:
// OverlapConfig says "`comm_lanes` must be between 1 and 8 (got 9)". The
// command line sets those fields through flags, so it prints the flag
// instead: "--streams must be between 1 and 8 (got 9)".
//
// Why a mark and not the bare field name: several field names are everyday
// words in the same messages ("iso splits a layer's sequence", "the chunked
// algorithm only", "the trial budget ended the search"), and messages quote
// user text and file paths. A bare-word rule would have to guess which
// "splits" is the field; the backticks say so, and a C++ or Python caller
// reads `comm_lanes` as the identifier it is.
#pragma once

#include <string>
#include <string_view>

namespace braid::cli {

// The flag that sets a library field ("comm_lanes" -> "--streams"); empty
// for a field the command line has no flag for.
std::string_view FlagOfField(std::string_view field);

// `message` with every marked field that has a flag replaced by that flag.
// Anything else stays as it was: unmarked words, unknown marked names
// (backticks kept), a lone backtick.
std::string FlagWorded(std::string_view message);

}  // namespace braid::cli
