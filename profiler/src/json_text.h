// JSON text appended to a string by hand, for outputs too large to build as
// a document first (a streamed Chrome trace of millions of slices): strings
// escaped per RFC 8259, numbers exact.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace braid {

// `s` as a JSON string, quotes included. Bytes that are not UTF-8 become
// U+FFFD, so that a name from a damaged trace never makes the file invalid.
void AppendJsonString(std::string& out, std::string_view s);

void AppendJsonInt(std::string& out, int64_t v);

// Shortest text that reads back as `v`; null for NaN and infinities, which
// JSON cannot hold.
void AppendJsonDouble(std::string& out, double v);

// Nanoseconds as microseconds with the nanoseconds kept exactly in the
// fraction: 1234567 -> 1234.567, 1500 -> 1.5, 2000 -> 2.
void AppendMicrosOfNanos(std::string& out, int64_t ns);

}  // namespace braid
