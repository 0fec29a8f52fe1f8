// Gzip (RFC 1952) compression of a whole buffer, for outputs named "*.gz".
#pragma once

#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid {

// The gzip file whose content is `bytes` (zlib, default level). Internal on a
// zlib failure (out of memory).
Result<std::string> GzipBytes(std::string_view bytes);

// True when `path` ends in ".gz": such outputs are written compressed.
bool NamesGzipFile(std::string_view path);

}  // namespace braid
